package io.cachegate.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Runs an action on {@code SIGHUP} (policy reload). The JDK's only signal API is {@code sun.misc.Signal} in
 * {@code jdk.unsupported}; it is reached by reflection because the build treats every warning, including
 * javac's "internal proprietary API" one, as an error. Where it is missing (another JVM), reload by file or by
 * {@code POST /admin/reload} still works.
 */
final class HangupSignal {

    private HangupSignal() {
    }

    /** True when the handler was installed. */
    static boolean onHangup(Runnable action) {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance("HUP");
            Object handler = Proxy.newProxyInstance(HangupSignal.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            action.run();
                            return null;
                        }
                        return method.invoke(action, args); // toString, hashCode, equals
                    });
            Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            handle.invoke(null, signal, handler);
            return true;
        } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
            return false;
        }
    }
}
