package io.cachegate.gateway.cache.embeddings;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where large embeddings batches are parsed and merged: CPU work of seconds for tens of megabytes of floats, kept
 * off the event loops. Bounded in threads (the cores) and in waiting batches ({@value #QUEUE}); beyond that a batch
 * is refused ({@code RejectedExecutionException}), which the stage answers as a bypass before sending and the
 * capture as a 502 after. Daemon threads that end when idle: nothing to shut down.
 */
final class MergeWorkers {

    static final int QUEUE = 64;

    private static final Executor POOL = create();

    private MergeWorkers() {
    }

    /** The one pool of the process, shared by every policy generation's stage. */
    static Executor pool() {
        return POOL;
    }

    private static Executor create() {
        AtomicInteger count = new AtomicInteger();
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), r -> {
                    Thread t = new Thread(r, "cachegate-embeddings-merge-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
