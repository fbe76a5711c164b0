package io.cachegate.cache.semantic;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
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

    /**
     * {@code threads} helpers that take a task only when one of them is idle: no queue, a task no helper is free for
     * is dropped. For {@link #runShared}, whose caller does whatever no helper took, so an idle core shortens the
     * work and a busy one adds no queueing. None for 0 threads.
     */
    static ExecutorService idleHelpers(String name, int threads) {
        ThreadPoolExecutor helpers = new ThreadPoolExecutor(0, Math.max(1, threads), 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), daemon(name), (task, pool) -> { });
        if (threads == 0) {
            helpers.shutdown();  // a shut-down pool hands every task to the rejection handler: dropped
        }
        return helpers;
    }

    /**
     * The results of {@code tasks}, in order, computed by the calling thread and, when one is idle, a helper from
     * {@code helpers}: both take the next task not yet taken until none is left.
     */
    static <T> List<T> runShared(List<Callable<T>> tasks, Executor helpers) throws IOException {
        int n = tasks.size();
        Object[] results = new Object[n];
        Throwable[] failures = new Throwable[n];
        AtomicInteger next = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(n);
        Runnable worker = () -> {
            for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                try {
                    results[i] = tasks.get(i).call();
                } catch (Throwable t) {
                    failures[i] = t;
                } finally {
                    finished.countDown();
                }
            }
        };
        if (n > 1) {
            helpers.execute(worker);
        }
        worker.run();
        try {
            finished.await();  // the task a helper may still be running
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while a helper searched");
        }
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (failures[i] instanceof IOException e) {
                throw e;
            }
            if (failures[i] != null) {
                throw new IllegalStateException("a shared search task failed", failures[i]);
            }
            @SuppressWarnings("unchecked") T result = (T) results[i];
            out.add(result);
        }
        return out;
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
