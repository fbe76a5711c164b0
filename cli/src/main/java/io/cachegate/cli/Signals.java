package io.cachegate.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;

/**
 * Runs the gateway's actions on POSIX signals: {@code SIGHUP} reloads the policy, {@code SIGTERM} and
 * {@code SIGINT} stop it. The JDK's only signal API is {@code sun.misc.Signal} in {@code jdk.unsupported}; it is
 * reached by reflection because the build treats every warning, including javac's "internal proprietary API"
 * one, as an error. Where it is missing (another JVM), reload by file or by {@code POST /admin/reload} still
 * works, and a stop falls back to the JVM's shutdown hooks.
 *
 * <p>The stop is handled here rather than in a shutdown hook because the JVM runs all its hooks at once, and
 * ONNX Runtime registers one that frees its native environment: a drain run beside it goes on embedding with a
 * freed environment, which can crash the JVM (onnxruntime issue 31352) and then skips the rest of the exit.
 * Handled on the signal, the drain finishes first and the JVM's exit begins after it.
 *
 * <p>A process started with a signal ignored ({@code nohup} for {@code SIGHUP}) never gets it: HotSpot leaves an
 * ignored {@code HUP}, {@code INT} or {@code TERM} ignored and answers {@code Signal.handle} with {@code SIG_IGN}
 * as the previous handler instead of failing. That answer is how this class tells it apart from an installed
 * handler. Nothing in Java can undo the disposition (only native code could).
 */
final class Signals {

    /** What became of a handler. */
    enum Installation {
        INSTALLED,
        /** The process was started with the signal ignored (e.g. SIGHUP under nohup): the JVM installs nothing. */
        IGNORED,
        /** This JVM has no sun.misc.Signal, or refuses the signal. */
        UNAVAILABLE;

        /** The warning to log when SIGHUP will not reload, with what will. */
        Optional<String> hangupWarning() {
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

    private Signals() {
    }

    /** Runs {@code action} on each SIGHUP. */
    static Installation onHangup(Runnable action) {
        return handle("HUP", action);
    }

    /**
     * Runs {@code stop} on SIGTERM and on SIGINT, on a thread of its own, before the JVM's exit begins; what
     * became of SIGTERM's handler (a stop the JVM still sees, as when it was ignored, goes to the shutdown hooks).
     */
    static Installation onStop(Runnable stop) {
        handle("INT", stop);
        return handle("TERM", stop);
    }

    private static Installation handle(String name, Runnable action) {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance(name);
            Object handler = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerClass},
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
