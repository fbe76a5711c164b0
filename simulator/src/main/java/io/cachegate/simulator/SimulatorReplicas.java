package io.cachegate.simulator;

import io.netty.util.concurrent.Future;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Several independent simulator replicas, as a router or an admission controller sees a model
 * served by a fleet: each has its own port, queue, prefix cache and counters. One can be
 * {@linkplain #stop(int) stopped} (its port then refuses connections, like a killed replica) and
 * {@linkplain #restart(int) restarted} on the same port with an empty cache and zeroed counters,
 * like a restarted process. Thread-safe.
 */
public final class SimulatorReplicas implements AutoCloseable {

    private final SimulatorOptions options;
    private final BackendSimulator[] replicas;
    private final boolean[] running;
    /** Replica i's KV-event publisher (all null without KV events): it outlives restarts. */
    private final KvEventPublisher[] events;

    private SimulatorReplicas(SimulatorOptions options, BackendSimulator[] replicas, KvEventPublisher[] events) {
        this.options = options;
        this.replicas = replicas;
        this.events = events;
        this.running = new boolean[replicas.length];
        Arrays.fill(running, true);
    }

    static SimulatorReplicas start(int count, SimulatorOptions options) {
        Objects.requireNonNull(options, "options");
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, was " + count);
        }
        if (options.port() != 0 && options.port() + count - 1 > 65535) {
            throw new IllegalArgumentException("ports " + options.port() + " to " + (options.port() + count - 1)
                    + " exceed 65535");
        }
        SimulatorOptions.KvEvents kv = options.kvEvents();
        if (kv.enabled() && kv.port() != 0 && kv.port() + 2 * count - 1 > 65535) {
            throw new IllegalArgumentException("kv events ports " + kv.port() + " to " + (kv.port() + 2 * count - 1)
                    + " exceed 65535");
        }
        BackendSimulator[] started = new BackendSimulator[count];
        KvEventPublisher[] events = new KvEventPublisher[count];
        try {
            for (int i = 0; i < count; i++) {
                if (kv.enabled()) {
                    events[i] = KvEventPublisher.open(options.host(), kv.port() == 0 ? 0 : kv.port() + 2 * i,
                            kv.replayBuffer());
                }
                started[i] = BackendSimulator.start(replicaOptions(options, i, options.port() == 0 ? 0
                        : options.port() + i), events[i]);
            }
        } catch (RuntimeException e) {
            closeAll(started, events);
            throw e;
        }
        return new SimulatorReplicas(options, started, events);
    }

    private static SimulatorOptions replicaOptions(SimulatorOptions options, int index, int port) {
        return options.withPort(port).withSeed(options.seed() + index);
    }

    public int size() {
        return replicas.length;
    }

    /** Replica {@code index} (0-based); after a {@link #restart(int)}, the new instance. */
    public synchronized BackendSimulator replica(int index) {
        return replicas[Objects.checkIndex(index, replicas.length)];
    }

    /** Every replica, in port order, as they are now. */
    public synchronized List<BackendSimulator> replicas() {
        return List.of(replicas.clone());
    }

    /** Each replica's {@code http://host:port}, in order; a stopped replica keeps its URL. */
    public synchronized List<URI> baseUrls() {
        List<URI> urls = new ArrayList<>(replicas.length);
        for (BackendSimulator replica : replicas) {
            urls.add(replica.baseUrl());
        }
        return List.copyOf(urls);
    }

    public SimulatorStats stats(int index) {
        return replica(index).stats();
    }

    public synchronized boolean isRunning(int index) {
        return running[Objects.checkIndex(index, replicas.length)];
    }

    /**
     * Kills replica {@code index}: stops listening and drops its connections, so requests in flight
     * fail and new connections are refused. Its last counters stay readable. Stopping twice does nothing.
     */
    public void stop(int index) {
        BackendSimulator replica;
        synchronized (this) {
            replica = replicas[Objects.checkIndex(index, replicas.length)];
            running[index] = false;
        }
        replica.close();
    }

    /**
     * Starts replica {@code index} again on the port it had, with an empty prefix cache and zeroed
     * counters; stops it first if it is running. Fails if another process took the port meanwhile. With KV
     * events the replica keeps its publisher (ports, sequence numbers, replay buffer), which announces the
     * empty cache with {@code AllBlocksCleared} before the new replica serves.
     */
    public synchronized BackendSimulator restart(int index) {
        BackendSimulator old = replicas[Objects.checkIndex(index, replicas.length)];
        old.close();
        running[index] = false;
        if (events[index] != null) {
            events[index].publish(List.of(new KvEvent.AllBlocksCleared()));
        }
        replicas[index] = BackendSimulator.start(replicaOptions(options, index, old.port()), events[index]);
        running[index] = true;
        return replicas[index];
    }

    /** Closes every replica at once and waits (bounded) for all of them. */
    @Override
    public void close() {
        BackendSimulator[] all;
        synchronized (this) {
            Arrays.fill(running, false);
            all = replicas.clone();
        }
        closeAll(all, events);
    }

    private static void closeAll(BackendSimulator[] all, KvEventPublisher[] events) {
        List<Future<?>> terminations = new ArrayList<>(all.length);
        for (BackendSimulator replica : all) {
            if (replica != null) {
                terminations.add(replica.closeAsync());
            }
        }
        for (Future<?> termination : terminations) {
            SimulatorServer.awaitClosed(termination);
        }
        for (BackendSimulator replica : all) {
            if (replica != null) {
                replica.closeSimulation();
            }
        }
        for (KvEventPublisher publisher : events) {
            if (publisher != null) {
                publisher.close();
            }
        }
    }
}
