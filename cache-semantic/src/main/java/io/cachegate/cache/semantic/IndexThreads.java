package io.cachegate.cache.semantic;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The bounded executor an index runs its blocking work on, and the hand-off into it. */
final class IndexThreads {

    private IndexThreads() {
    }

    /** {@code threads} daemon threads and a queue of {@code queueCapacity}: a full queue rejects, it never grows. */
    static ExecutorService bounded(String name, int threads, int queueCapacity) {
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity), daemon(name), new ThreadPoolExecutor.AbortPolicy());
    }

    static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Runs {@code work} on {@code executor}; a full queue or a closed index fails the future, never the caller. */
    static <T> CompletableFuture<T> submit(ExecutorService executor, Callable<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(work.call());
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IndexUnavailableException(
                    executor.isShutdown() ? "index closed" : "index queue full", e));
        }
        return result;
    }
}
