package io.cachegate.kv;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Follows the KV-event streams of every replica on one thread of its own: a ZeroMQ SUB socket per replica, batches
 * applied in sequence order. A gap in the sequence (messages dropped by a full socket, a reconnect) is filled from
 * the replica's replay socket, as is everything published before this gateway listened (a bootstrap replay from
 * sequence 0 at start); a sequence that starts again means the publisher restarted, and its blocks are forgotten.
 * JeroMQ sockets are single-threaded, so every socket lives and dies on this thread; routing reads the blocks
 * without ever waiting for it.
 */
public final class KvEventSubscriber implements AutoCloseable {

    /** Told of what the subscriber sees, for metrics. Called on the subscriber's thread: must not block. */
    public interface Listener {
        /** A batch was applied {@code nanos} after its publisher stamped it (live batches only). */
        void lag(KvFeed feed, long nanos);

        Listener NONE = (feed, nanos) -> { };
    }

    /**
     * A sibling gateway's index of a backend ({@link KvSnapshot}), for when the replay no longer holds what this
     * one missed. Called on the subscriber's thread; should give up within a couple of seconds.
     */
    public interface SnapshotSource {
        Optional<byte[]> fetch(String backend);

        SnapshotSource NONE = backend -> Optional.empty();
    }

    private static final Logger LOG = LoggerFactory.getLogger(KvEventSubscriber.class);
    /** A connection whose handshake has not completed in this time is dropped and made again. */
    private static final int HANDSHAKE_MILLIS = 2000;
    /** Messages a SUB socket queues before ZeroMQ drops (a gap the replay then fills): bounded, as every queue. */
    static final int RECEIVE_HIGH_WATER_MARK = 100_000;
    private static final long END_OF_REPLAY = -1;
    /**
     * A live replica answers a replay in milliseconds; one that is down must not hold up the other feeds for long
     * (they share this thread), so a silent replay socket is given up quickly and asked again later, less often
     * each time (200 ms doubling to 30 s); live batches of every feed wait meanwhile, so the wait is short (50 ms
     * between replies). A fresh DEALER each time: JeroMQ now and then loses the first request
     * on a new connection (about 1 in 100 here), which the retry absorbs, and a reply that arrives late can never
     * be taken for the answer to a later request.
     */
    private static final int REPLAY_TIMEOUT_MILLIS = 50;
    private static final long REPLAY_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long REPLAY_RETRY_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    static final Duration DEFAULT_CATCH_UP = Duration.ofSeconds(2);

    private final List<KvFeed> feeds;
    private final Listener listener;
    private final long catchUpNanos;
    private final SnapshotSource siblings;
    private static final long SNAPSHOT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private final Thread thread;
    private volatile boolean running = true;

    public KvEventSubscriber(List<KvFeed> feeds, Listener listener) {
        this(feeds, listener, DEFAULT_CATCH_UP, SnapshotSource.NONE);
    }

    /**
     * @param siblings where to fetch a sibling's snapshot when the replay no longer holds what was missed
     * @param catchUp how long a feed may be silent before the replay is asked for anything newer: a lost message is
     *                otherwise only noticed when the next one arrives, which on a quiet replica may be never
     */
    public KvEventSubscriber(List<KvFeed> feeds, Listener listener, Duration catchUp, SnapshotSource siblings) {
        this.feeds = List.copyOf(feeds);
        this.listener = Objects.requireNonNull(listener, "listener");
        this.catchUpNanos = catchUp.toNanos();
        this.siblings = Objects.requireNonNull(siblings, "siblings");
        this.thread = new Thread(this::run, "cachegate-kv-events");
        this.thread.setDaemon(true);
    }

    public KvEventSubscriber start() {
        thread.start();
        return this;
    }

    public List<KvFeed> feeds() {
        return feeds;
    }

    private void run() {
        try (ZContext context = new ZContext()) {
            context.setLinger(0);
            ZMQ.Socket[] subs = new ZMQ.Socket[feeds.size()];
            ZMQ.Poller poller = context.createPoller(feeds.size());
            for (int i = 0; i < subs.length; i++) {
                subs[i] = context.createSocket(SocketType.SUB);
                subs[i].setRcvHWM(RECEIVE_HIGH_WATER_MARK);
                // A JeroMQ connection whose TCP connect completed at once sometimes never starts its handshake (seen
                // on loopback: the publisher's greeting unread, ours never sent, nothing heard for 20 s in 3 of 10
                // runs); the handshake timeout drops it and reconnects. JeroMQ's default would leave a feed deaf 30 s.
                subs[i].setHandshakeIvl(HANDSHAKE_MILLIS);
                subs[i].subscribe(ZMQ.SUBSCRIPTION_ALL);
                subs[i].connect(feeds.get(i).publish());
                poller.register(subs[i], ZMQ.Poller.POLLIN);
            }
            while (running && !Thread.currentThread().isInterrupted()) {
                long now = System.nanoTime();
                for (KvFeed feed : feeds) {
                    if (now >= feed.retryReplayAtNanos
                            && (feed.refillFrom >= 0 || now - feed.heardAtNanos > catchUpNanos)) {
                        feed.heardAtNanos = now;
                        catchUp(context, feed);
                    }
                }
                if (poller.poll(100) <= 0) {
                    continue;
                }
                for (int i = 0; i < subs.length; i++) {
                    if (poller.pollin(i)) {
                        drain(context, subs[i], feeds.get(i));
                    }
                }
            }
            poller.close();
        } catch (RuntimeException e) {
            if (running) {
                LOG.error("KV-event subscriber stopped; routing falls back to prefix affinity", e);
            }
        }
    }

    private void drain(ZContext context, ZMQ.Socket sub, KvFeed feed) {
        ZMsg msg;
        while ((msg = ZMsg.recvMsg(sub, ZMQ.DONTWAIT)) != null) {
            if (msg.size() < 3) {
                feed.malformed++;
                continue;
            }
            msg.pop(); // the topic
            long seq = seq(msg.pop().getData());
            if (seq < 0) {
                feed.malformed++;
                continue;
            }
            live(context, feed, seq, msg.pop().getData());
        }
    }

    private void live(ZContext context, KvFeed feed, long seq, byte[] payload) {
        long now = System.nanoTime();
        feed.heardAtNanos = now;
        // After a replay the socket may still hold live copies of batches it gave (the same bytes under the same
        // number); an old number with other bytes means the sequence started again.
        if (feed.caughtUp && seq <= feed.lastSeq && !feed.applied(seq, payload)) {
            // The sequence started again: the publisher (the replica) restarted and its cache is gone.
            feed.restarts++;
            feed.blocks().clear();
            feed.lastSeq = -1;
            feed.caughtUp = false;
            feed.refillFrom = -1;
            if (seq > 0) {
                feed.refillFrom = 0;
                catchUp(context, feed);
            }
        }
        if (seq <= feed.lastSeq) {
            return; // already applied from a replay
        }
        if (seq > feed.lastSeq + 1) {
            feed.gaps++;
            feed.refillFrom = feed.refillFrom < 0 ? feed.lastSeq + 1 : Math.min(feed.refillFrom, feed.lastSeq + 1);
            if (System.nanoTime() >= feed.retryReplayAtNanos) {
                catchUp(context, feed);
            }
            if (seq <= feed.lastSeq) {
                return;
            }
        }
        KvEvent.Batch batch = apply(feed, seq, payload);
        feed.caughtUp = true;
        if (batch != null) {
            Instant wall = Instant.now(); // microseconds on Linux, as the publisher's time.time()
            long lag = Math.round(((wall.getEpochSecond() - batch.ts()) + wall.getNano() / 1e9) * 1e9);
            listener.lag(feed, Math.max(0, lag));
        }
    }

    /**
     * Asks the replica's replay socket for what this feed lacks and applies it in order: from {@link
     * KvFeed#refillFrom} when a gap is open (re-applying what came after it: stores and removals are idempotent, so
     * the same events in the same order end in the same state, now with the parents the gap hid), else whatever is
     * newer than the last batch. A replay that does not answer keeps the gap open and is asked again later, less
     * often each time; without a replay socket an open gap is counted as unfilled and closed.
     */
    private void catchUp(ZContext context, KvFeed feed) {
        if (feed.replay().isEmpty()) {
            if (feed.refillFrom >= 0) {
                feed.gapsUnfilled++;
                feed.refillFrom = -1;
            }
            return;
        }
        long from = feed.refillFrom >= 0 ? feed.refillFrom : feed.lastSeq + 1;
        ZMQ.Socket dealer = context.createSocket(SocketType.DEALER);
        try {
            dealer.setReceiveTimeOut(REPLAY_TIMEOUT_MILLIS);
            dealer.connect(feed.replay().get());
            dealer.sendMore(new byte[0]);
            dealer.send(ByteBuffer.allocate(8).putLong(from).array());
            boolean first = true;
            boolean lost = false;
            while (running) {
                ZMsg reply = ZMsg.recvMsg(dealer);
                if (reply == null) {
                    // No answer: the replica is not up (or not yet); ask again later, backing off.
                    feed.replayBackoffNanos = Math.min(REPLAY_RETRY_MAX_NANOS,
                            Math.max(REPLAY_RETRY_NANOS, 2 * feed.replayBackoffNanos));
                    feed.retryReplayAtNanos = System.nanoTime() + feed.replayBackoffNanos;
                    return;
                }
                feed.replayBackoffNanos = 0;
                feed.retryReplayAtNanos = Long.MIN_VALUE;
                if (reply.size() > 0 && reply.peekFirst().size() == 0) {
                    reply.pop(); // the empty delimiter
                }
                long seq = reply.size() > 0 ? seq(reply.pop().getData()) : Long.MIN_VALUE;
                if (seq == END_OF_REPLAY) {
                    feed.refillFrom = -1;
                    feed.replayed = true;
                    if (lost) {
                        fromSibling(context, feed);
                    }
                    return;
                }
                if (seq < 0 || reply.size() < 1) {
                    feed.malformed++;
                    continue;
                }
                if (first && seq > from) {
                    feed.gapsUnfilled++; // the replay buffer no longer holds what was missed
                    lost = true;
                }
                first = false;
                if (seq >= from) {
                    apply(feed, seq, reply.pop().getData());
                }
            }
        } finally {
            dealer.close();
        }
    }

    /**
     * The replay could not give what this feed missed: takes a sibling gateway's index of the replica when it is
     * ahead, then replays from the sibling's sequence number on (at most once per 30 s per feed).
     */
    private void fromSibling(ZContext context, KvFeed feed) {
        long now = System.nanoTime();
        if (now < feed.snapshotAtNanos) {
            return;
        }
        feed.snapshotAtNanos = now + SNAPSHOT_RETRY_NANOS;
        Optional<byte[]> snapshot;
        try {
            snapshot = siblings.fetch(feed.backend());
        } catch (RuntimeException e) {
            LOG.warn("KV snapshot of backend {} from a sibling failed: {}", feed.backend(), e.toString());
            return;
        }
        if (snapshot.isEmpty()) {
            return;
        }
        try {
            Optional<Long> seq = KvSnapshot.load(snapshot.get(), feed);
            if (seq.isPresent()) {
                feed.snapshots++;
                feed.refillFrom = seq.get() + 1;
                catchUp(context, feed);
            }
        } catch (IllegalArgumentException e) {
            LOG.warn("KV snapshot of backend {} from a sibling is malformed: {}", feed.backend(), e.getMessage());
        }
    }

    private static KvEvent.Batch apply(KvFeed feed, long seq, byte[] payload) {
        feed.lastSeq = Math.max(feed.lastSeq, seq);
        feed.remember(seq, payload);
        feed.batches++;
        KvEvent.Batch batch;
        try {
            batch = KvEventDecoder.decode(payload);
        } catch (IllegalArgumentException e) {
            feed.malformed++;
            return null;
        }
        for (KvEvent event : batch.events()) {
            feed.blocks().apply(event);
        }
        return batch;
    }

    private static long seq(byte[] bytes) {
        if (bytes.length != 8) {
            return Long.MIN_VALUE;
        }
        return ByteBuffer.wrap(bytes).getLong();
    }

    /** Stops the thread and closes every socket (within a second). */
    @Override
    public void close() {
        running = false; // not an interrupt: it closes JeroMQ's channels under it; the poll wakes every 100 ms
        try {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
