package io.cachegate.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Work gathered under the controller's lock and run after it is released, so that future callbacks
 * and listeners never run with the lock held. Futures complete before listeners are told. A failing
 * listener goes to the thread's uncaught-exception handler instead of out of {@code offer} or
 * {@code release}: by then capacity has been granted, and throwing would leak the lease.
 */
final class Effects {

    private List<Runnable> completions;
    private List<Runnable> notifications;

    void complete(CompletableFuture<Admission> future, Admission outcome) {
        if (completions == null) {
            completions = new ArrayList<>(2);
        }
        completions.add(() -> future.complete(outcome));
    }

    void notify(Runnable event) {
        if (notifications == null) {
            notifications = new ArrayList<>(2);
        }
        notifications.add(event);
    }

    void run() {
        if (completions != null) {
            // complete() never throws: a failing dependent fails its own stage.
            completions.forEach(Runnable::run);
        }
        if (notifications != null) {
            for (Runnable r : notifications) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    Thread t = Thread.currentThread();
                    t.getUncaughtExceptionHandler().uncaughtException(t, e);
                }
            }
        }
    }
}
