package io.cachegate.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;

/**
 * Runs an action on {@code SIGHUP} (policy reload). The JDK's only signal API is {@code sun.misc.Signal} in
 * {@code jdk.unsupported}; it is reached by reflection because the build treats every warning, including
 * javac's "internal proprietary API" one, as an error. Where it is missing (another JVM), reload by file or by
 * {@code POST /admin/reload} still works.
 *
 * <p>A process started with {@code SIGHUP} ignored ({@code nohup}, or a shell's background job) never gets it:
 * HotSpot leaves an ignored {@code HUP}, {@code INT} or {@code TERM} ignored and answers {@code Signal.handle}
 * with {@code SIG_IGN} as the previous handler instead of failing. That answer is how this class tells it apart
 * from an installed handler. Nothing in Java can undo the disposition (only native code could).
 */
final class HangupSignal {

    /** What became of the handler. */
    enum Installation {
        INSTALLED,
        /** The process was started with SIGHUP ignored (e.g. under nohup): the JVM installs nothing. */
        IGNORED,
        /** This JVM has no sun.misc.Signal, or refuses SIGHUP. */
        UNAVAILABLE;

        /** The warning to log when SIGHUP will not reload, with what will. */
        Optional<String> warning() {
            String fallback = " SIGHUP will not reload the policy; a change to the policy file is applied within a"
                    + " second, or call POST /admin/reload.";
            return switch (this) {
                case INSTALLED -> Optional.empty();
                case IGNORED -> Optional.of("the process was started with SIGHUP ignored (nohup?), and the JVM"
                        + " leaves an ignored signal ignored:" + fallback);
                case UNAVAILABLE -> Optional.of("this JVM offers no SIGHUP handler (sun.misc.Signal):" + fallback);
            };
        }
    }

    private HangupSignal() {
    }

    static Installation onHangup(Runnable action) {
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
            Object previous = handle.invoke(null, signal, handler);
            Object ignored = handlerClass.getField("SIG_IGN").get(null);
            return previous == ignored ? Installation.IGNORED : Installation.INSTALLED;
        } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
            return Installation.UNAVAILABLE;
        }
    }
}
