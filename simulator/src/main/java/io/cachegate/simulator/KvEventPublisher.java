package io.cachegate.simulator;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;
import org.zeromq.ZMsg;

/**
 * A replica's KV-event publisher, as vLLM's {@code ZmqEventPublisher}: a PUB socket sends each batch as
 * {@code [topic (empty), seq (8 bytes big-endian), msgpack payload]}, and a ROUTER socket on the next port
 * answers replay requests {@code [identity, empty, start seq]} with every kept batch from that seq on, then
 * {@code [identity, empty, -1, empty]}. One thread owns both sockets (JeroMQ sockets are single-threaded);
 * callers hand it batches through a bounded queue. When the queue is full the batch is dropped and counted,
 * but it keeps its sequence number, so subscribers see the gap.
 */
final class KvEventPublisher implements KvEventSink, AutoCloseable {

    /** Batches waiting for the publisher thread; beyond it batches are dropped (and counted). */
    static final int QUEUE_CAPACITY = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(KvEventPublisher.class);
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] END_SEQ = seqBytes(-1);
    /** How long the thread waits for a batch before it looks at the replay socket again. */
    private static final long POLL_MILLIS = 20;
    /** Batches sent in a row before the replay socket gets its turn. */
    private static final int DRAIN_BATCH = 256;
    private static final int BIND_ATTEMPTS = 50;
    private static final long START_TIMEOUT_SECONDS = 10;
    private static final long CLOSE_TIMEOUT_MILLIS = 2_000;

    private record Batch(long seq, double ts, List<KvEvent> events) {
    }

    private record Kept(long seq, byte[] payload) {
    }

    private final String bindHost;
    private final String advertisedHost;
    private final int requestedPort;
    private final int replayBuffer;
    private final BlockingQueue<Batch> queue;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final CompletableFuture<Integer> bound = new CompletableFuture<>();
    private volatile boolean running = true;
    private long nextSeq;
    private volatile Thread thread;
    private volatile int port;

    /** A publisher that accepts batches but sends nothing until {@link #start()}. */
    KvEventPublisher(String host, int port, int replayBuffer, int queueCapacity) {
        this.bindHost = host;
        this.advertisedHost = reachable(host);
        this.requestedPort = port;
        this.replayBuffer = replayBuffer;
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
    }

    /** Binds {@code port} (PUB) and {@code port + 1} (replay), or a free pair when 0, and starts publishing. */
    static KvEventPublisher open(String host, int port, int replayBuffer) {
        KvEventPublisher publisher = new KvEventPublisher(host, port, replayBuffer, QUEUE_CAPACITY);
        publisher.start();
        return publisher;
    }

    /** Starts the thread and returns once both sockets are bound; fails if they cannot be. */
    void start() {
        Thread t = new Thread(this::run, "sim-kv-events");
        t.setDaemon(true);
        thread = t;
        t.start();
        try {
            port = bound.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalArgumentException("kv events: cannot bind " + bindHost + ":" + requestedPort
                    + (requestedPort == 0 ? "" : " and " + (requestedPort + 1)) + ": " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            close();
            throw new IllegalStateException("kv events: the publisher did not bind within "
                    + START_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while binding the kv-events sockets", e);
        }
    }

    /**
     * Queues one batch of events for publishing, stamped now, under the next sequence number; never blocks.
     * Returns false when the queue was full: the batch is dropped, counted, and its number is skipped.
     */
    @Override
    public synchronized boolean publish(List<KvEvent> events) {
        Batch batch = new Batch(nextSeq++, epochSeconds(), List.copyOf(events));
        if (!running || !queue.offer(batch)) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    /** {@code tcp://host:port} of the PUB socket, the host as a client reaches it. */
    String endpoint() {
        return "tcp://" + advertisedHost + ":" + port;
    }

    /** {@code tcp://host:port} of the replay (ROUTER) socket: the PUB port + 1. */
    String replayEndpoint() {
        return "tcp://" + advertisedHost + ":" + (port + 1);
    }

    int port() {
        return port;
    }

    /** Batches sent on the PUB socket. */
    long published() {
        return published.get();
    }

    /** Batches dropped because the queue was full. */
    long dropped() {
        return dropped.get();
    }

    /** Stops the thread (within about {@value #POLL_MILLIS} ms) and closes both sockets without lingering. */
    @Override
    public void close() {
        running = false;
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(CLOSE_TIMEOUT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                LOG.warn("kv-events publisher on {} did not stop within {} ms", endpoint(), CLOSE_TIMEOUT_MILLIS);
            }
        }
    }

    /** The publisher thread: binds, then alternates between sending queued batches and serving replays. */
    private void run() {
        ZMQ.Context context = ZMQ.context(1);
        ZMQ.Socket pub = context.socket(SocketType.PUB);
        ZMQ.Socket replay = context.socket(SocketType.ROUTER);
        try {
            boolean ipv6 = bindHost.contains(":");
            for (ZMQ.Socket socket : List.of(pub, replay)) {
                socket.setLinger(0);
                socket.setIPv6(ipv6);
            }
            pub.setSndHWM(100_000); // vLLM's; PUB drops beyond it for a slow subscriber, never blocks
            replay.setSndHWM(replayBuffer + 16); // a whole replay must fit, or ROUTER drops its tail
            int chosen = bind(pub, replay);
            port = chosen;
            LOG.info("publishing KV events on {}, replay on {}", endpoint(), replayEndpoint());
            bound.complete(chosen);
        } catch (RuntimeException e) {
            bound.completeExceptionally(e);
            pub.close();
            replay.close();
            context.term();
            return;
        }
        ArrayDeque<Kept> kept = new ArrayDeque<>();
        try {
            while (running) {
                Batch batch = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                for (int sent = 0; batch != null; batch = ++sent < DRAIN_BATCH ? queue.poll() : null) {
                    send(pub, kept, batch);
                }
                serveReplays(replay, kept);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("kv-events publisher on {} stopped", endpoint(), e);
        } finally {
            running = false;
            queue.clear();
            pub.close();
            replay.close();
            context.term();
        }
    }

    private int bind(ZMQ.Socket pub, ZMQ.Socket replay) {
        String host = bindHost.contains(":") ? "[" + bindHost + "]" : bindHost;
        if (requestedPort != 0) {
            pub.bind("tcp://" + host + ":" + requestedPort);
            replay.bind("tcp://" + host + ":" + (requestedPort + 1));
            return requestedPort;
        }
        for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
            pub.bind("tcp://" + host + ":*");
            String endpoint = pub.getLastEndpoint();
            int chosen = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
            if (chosen < 65535) {
                try {
                    replay.bind("tcp://" + host + ":" + (chosen + 1));
                    return chosen;
                } catch (ZMQException e) {
                    LOG.debug("kv events: port {} is taken, trying another pair", chosen + 1);
                }
            }
            pub.unbind(endpoint);
        }
        throw new IllegalStateException("no free pair of ports after " + BIND_ATTEMPTS + " attempts");
    }

    private void send(ZMQ.Socket pub, ArrayDeque<Kept> kept, Batch batch) {
        byte[] payload = KvEventCodec.encode(batch.ts(), batch.events());
        byte[] seq = seqBytes(batch.seq());
        pub.sendMore(EMPTY);
        pub.sendMore(seq);
        pub.send(payload, 0);
        published.incrementAndGet();
        if (replayBuffer > 0) {
            if (kept.size() == replayBuffer) {
                kept.removeFirst();
            }
            kept.addLast(new Kept(batch.seq(), payload));
        }
    }

    /** Answers every replay request waiting, as vLLM's {@code _service_replay}; malformed ones are ignored. */
    private static void serveReplays(ZMQ.Socket replay, ArrayDeque<Kept> kept) {
        ZMsg request;
        while ((request = ZMsg.recvMsg(replay, ZMQ.DONTWAIT)) != null) {
            if (request.size() != 3 || request.getLast().size() != Long.BYTES) {
                LOG.debug("kv events: ignoring a replay request of {} frames", request.size());
                request.destroy();
                continue;
            }
            byte[] identity = request.pop().getData();
            request.pop(); // the empty delimiter
            long start = ByteBuffer.wrap(request.pop().getData()).getLong();
            request.destroy();
            LOG.debug("kv events: replay from {} of {} kept batches", start, kept.size());
            for (Kept batch : kept) {
                if (batch.seq() >= start) {
                    replay.sendMore(identity);
                    replay.sendMore(EMPTY);
                    replay.sendMore(seqBytes(batch.seq()));
                    replay.send(batch.payload(), 0);
                }
            }
            replay.sendMore(identity);
            replay.sendMore(EMPTY);
            replay.sendMore(END_SEQ);
            replay.send(EMPTY, 0);
        }
    }

    private static byte[] seqBytes(long seq) {
        return ByteBuffer.allocate(Long.BYTES).putLong(seq).array();
    }

    /** A wildcard bind is reached through loopback. */
    private static String reachable(String host) {
        if (host.equals("0.0.0.0") || host.equals("::") || host.isEmpty() || host.equals("*")) {
            return "127.0.0.1";
        }
        return host.contains(":") ? "[" + host + "]" : host;
    }

    /** Now in epoch seconds with microseconds (vLLM's {@code time.time()}): lag is measured in milliseconds. */
    private static double epochSeconds() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() + now.getNano() / 1e9;
    }
}
