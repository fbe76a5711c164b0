package io.cachegate.cache.exact;

import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log of short text records that the gateways of a fleet share, kept in one Redis stream: each gateway appends its
 * own ({@code XADD}, the stream trimmed to about {@code maxRecords}) and reads everyone else's in the stream's order
 * ({@code XREAD} from the last id it read, every {@link #POLL_MILLIS} ms). A record carries its writer's origin id,
 * so a gateway skips its own; a gateway restarted under the same origin, from the position it saved, counts nothing
 * twice.
 *
 * <p>With the store's signing key ({@link EntrySigner}), as for its entries: each record carries its origin, a
 * sequence number that only grows (microseconds of the wall clock when the journal opened, plus one a record) and an
 * HMAC over the stream, the origin, the number and the record; a reader refuses a record whose MAC does not match, or
 * whose number it took already from that origin (a copy), and counts it. A reader that resumes after a saved
 * {@link Position} starts from the numbers it had taken ({@link Position#taken}), so a copy planted after its restart
 * is refused too. So whoever can write to Redis can plant no evidence and replay none, as they can plant no entry.
 *
 * <p>Never in a request's way: {@link #append} only queues (a bounded queue: beyond it records are dropped and
 * counted), the sends and reads run on the Redis client's threads. While Redis is away, records wait in the queue.
 * An append that fails (a command timed out in a stall, a connection lost under it) is sent again, as it was, 1, 2,
 * 4 and 8 rounds later (up to {@link #MAX_ATTEMPTS} sends, about 4 s) while it is within half a
 * {@link SequenceWindow#SIZE} of the newest record. A timed-out append may have landed, so readers take each (origin,
 * number) once ({@link SequenceWindow}): a record comes in at most once whatever the retries, possibly after later
 * ones (evidence is counts, so its order does not matter). What is lost (dropped, or still failing) is counted.
 * Built from the exact store's URI with a connection and resources of its own, as {@link RedisFlightLeases} is.
 */
public final class RedisJournal implements AutoCloseable {

    /** How often the stream is read (and the queue sent): a record reaches the other gateways within about this. */
    static final long POLL_MILLIS = 250;
    /** Records read by one {@code XREAD}; a full batch is followed by the next at once. */
    static final int READ_BATCH = 1000;
    /** Records on their way to Redis at once, at most: a round sends into the room left, a finished batch the next. */
    static final int SEND_BATCH = 1000;
    /** Sends of one record, at most, before it is counted as failed. */
    static final int MAX_ATTEMPTS = 5;
    /** A record's fields in the stream: its writer's origin, the record (signed or not) and its sequence number. */
    static final String ORIGIN = "o";
    static final String RECORD = "r";
    static final String SEQUENCE = "s";
    private static final Logger LOG = LoggerFactory.getLogger(RedisJournal.class);

    /** Called for each record another gateway appended, in the stream's order, on one thread at a time. */
    @FunctionalInterface
    public interface Reader {
        /** @param id the record's position in the stream: reading resumes after it */
        void read(String id, String record);
    }

    /**
     * What the journal did since it opened. {@code failed}: records still not appended after {@link #MAX_ATTEMPTS}
     * sends; {@code duplicates}: second copies of a record taken (an append sent again that had landed), skipped;
     * {@code refused}: records whose signature did not hold, or copies older than the window no retry reaches.
     */
    public record Counts(long sent, long dropped, long failed, long received, long duplicates, long refused) {
    }

    /**
     * Where a reader stands: the id its records carry, the stream id it has read up to, and per writer the highest
     * sequence number it took. Saved with what it read and given back at a restart, so the journal resumes after
     * {@code after} and takes no number at or below a writer's {@code taken} one (a copy planted since is refused).
     *
     * @param origin this reader's id (null: a new one)
     * @param after the stream id reading starts after ({@code "0"}: the whole stream as kept)
     * @param taken per writer's origin, the highest number taken; at most 10,000 (the least recently heard beyond)
     */
    public record Position(String origin, String after, Map<String, Long> taken) {

        public Position {
            Objects.requireNonNull(after, "after");
            taken = Map.copyOf(taken);
        }

        /** A new reader, reading the whole stream as kept. */
        public static Position start() {
            return new Position(null, "0", Map.of());
        }
    }

    private final RedisConnector connector;
    private final ClientResources resources;
    private final String stream;
    private final byte[] origin;
    private final String originText;
    private final XAddArgs trim;
    private final Reader reader;
    private final BlockingQueue<String> pending;
    private final RateLimitedLog warnings;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean reading = new AtomicBoolean();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final EntrySigner signer;
    private final AtomicLong sequence = new AtomicLong(System.currentTimeMillis() * 1000);
    /** Which records read are taken; read on one thread at a time. */
    private final JournalIntake intake;
    /** Appends that failed, to be sent again first; at most {@link #SEND_BATCH}, beyond which they count failed. */
    private final Queue<Outgoing> retries = new ConcurrentLinkedQueue<>();
    private final AtomicLong roundsRun = new AtomicLong();
    private volatile String lastId;
    /** Done once a read came back short of a batch: what the stream held when this journal opened has been read. */
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private volatile RedisConnector.Connected connected;
    private volatile ScheduledFuture<?> rounds;
    private volatile boolean closed;

    private RedisJournal(RedisConnector connector, ClientResources resources, String stream, Position from,
                         long maxRecords, int maxPending, EntrySigner signer, Reader reader,
                         RedisStoreOptions options) {
        this.connector = connector;
        this.signer = signer;
        this.resources = resources;
        this.stream = stream;
        this.originText = from.origin() == null ? UUID.randomUUID().toString() : from.origin();
        this.origin = originText.getBytes(StandardCharsets.UTF_8);
        this.lastId = from.after();
        this.intake = new JournalIntake(stream, signer, from.taken());
        this.trim = XAddArgs.Builder.maxlen(maxRecords).approximateTrimming();
        this.reader = reader;
        this.pending = new ArrayBlockingQueue<>(maxPending);
        this.warnings = new RateLimitedLog(LOG, options.warnInterval());
    }

    /**
     * Starts connecting to {@code uri} (the exact store's) and returns at once: {@link #create} then {@link #start}.
     *
     * @param from where to resume ({@link Position#start()}: a new reader); its origin is the id this gateway's
     *             records carry, and its own are not read back
     * @param maxRecords the stream is trimmed to about this many records
     * @param maxPending records waiting to be sent, at most; more are dropped
     * @param signer the exact store's: records signed and checked with its key, or {@link EntrySigner#none()}
     */
    public static RedisJournal open(String uri, String stream, Position from, long maxRecords,
                                    int maxPending, Duration commandTimeout, EntrySigner signer, Reader reader) {
        return create(uri, stream, from, maxRecords, maxPending, commandTimeout, signer, reader).start();
    }

    /**
     * A journal that neither connects nor reads until {@link #start}: for a caller that must hold the journal (its
     * {@link #position()}) before the first record reaches its {@link Reader}. Parameters as {@link #open}.
     */
    public static RedisJournal create(String uri, String stream, Position from, long maxRecords,
                                      int maxPending, Duration commandTimeout, EntrySigner signer, Reader reader) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(reader, "reader");
        if (maxRecords < 1 || maxPending < 1) {
            throw new IllegalArgumentException("bounds must be positive: " + maxRecords + ", " + maxPending);
        }
        ClientResources resources = CacheStores.clientResources();
        // Room for a round's sends and a read: the client refuses commands beyond its queue.
        RedisStoreOptions options = RedisStoreOptions.of(commandTimeout, 2 * SEND_BATCH + 16);
        return new RedisJournal(RedisConnector.create(uri, resources, options), resources, stream, from, maxRecords,
                maxPending, signer, reader, options);
    }

    /** Starts connecting (and then sending and reading) and returns at once; once only. */
    public RedisJournal start() {
        if (started.compareAndSet(false, true)) {
            connectLoop(0);
        }
        return this;
    }

    /** The id this gateway's records carry. */
    public String origin() {
        return originText;
    }

    /** The id of the last record read (another gateway's or this one's): reading resumes after it. */
    public String lastId() {
        return lastId;
    }

    /**
     * Where this reader stands now, to save and resume from. Each part is advanced before a record is given to the
     * {@link Reader}: a position read after what the reader filed is never behind it (a restart may lose a record
     * filed in between, never take one twice).
     */
    public Position position() {
        return new Position(originText, lastId, intake.taken());
    }

    /** Queues {@code record} for the stream; false (the record dropped and counted) when the queue is full. */
    public boolean append(String record) {
        if (closed || !pending.offer(record)) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    public Counts counts() {
        return new Counts(sent.get(), dropped.get(), failed.get(), received.get(), duplicates.get(), refused.get());
    }

    /** Done once the records the stream held at the start have been read (never, while Redis is away). */
    public CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    /** Whether the journal's connection is up now. */
    public boolean connected() {
        RedisConnector.Connected c = connected;
        return c != null && c.connection().isOpen();
    }

    private void connectLoop(int attempt) {
        if (closed) {
            return;
        }
        connector.connect().whenComplete((c, error) -> {
            if (error == null) {
                connected = c;
                if (closed) {
                    c.connection().closeAsync();
                    return;
                }
                rounds = resources.eventExecutorGroup().scheduleWithFixedDelay(this::round, 0, POLL_MILLIS,
                        TimeUnit.MILLISECONDS);
                return;
            }
            warnings.warn("shared journal " + stream + ": cannot connect yet (" + error + "); retrying");
            long delay = RedisConnector.connectRetryMillis(attempt);
            resources.eventExecutorGroup().schedule(() -> connectLoop(attempt + 1), delay, TimeUnit.MILLISECONDS);
        });
    }

    /** One round: what is queued goes out, what is new comes in. */
    private void round() {
        RedisConnector.Connected c = connected;
        if (c == null || !c.connection().isOpen()) {
            return; // Lettuce is reconnecting: the queue waits (bounded)
        }
        roundsRun.incrementAndGet();
        send(c.commands());
        read(c.commands());
    }

    /** A record on its way: its fields (fixed at its first send, so a copy that landed is known) and its sends. */
    private record Outgoing(long number, Map<String, byte[]> body, int attempts, long dueRound) {
    }

    /** Synchronized: a round and a finished batch may both send, and together must not pass {@link #SEND_BATCH}. */
    private synchronized void send(RedisClusterAsyncCommands<String, byte[]> commands) {
        List<Outgoing> batch = new ArrayList<>();
        long now = roundsRun.get();
        int room = SEND_BATCH - inFlight.get();
        for (Iterator<Outgoing> it = retries.iterator(); it.hasNext() && batch.size() < room; ) {
            Outgoing again = it.next();
            if (!recent(again)) {
                it.remove(); // readers would refuse it as a copy of an old record
                failed.incrementAndGet();
            } else if (again.dueRound() <= now) {
                it.remove();
                batch.add(again); // the failed ones first, as they were
            }
        }
        List<String> records = new ArrayList<>();
        pending.drainTo(records, room - batch.size());
        records.forEach(record -> batch.add(outgoing(record)));
        inFlight.addAndGet(batch.size());
        for (Outgoing out : batch) {
            commands.xadd(stream, trim, out.body())
                    .whenComplete((id, error) -> {
                        if (error == null) {
                            sent.incrementAndGet();
                        } else {
                            failedOnce(out, error);
                        }
                        if (inFlight.decrementAndGet() == 0 && !pending.isEmpty() && !closed) {
                            send(commands); // more than a batch a round: the next at once, not a round later
                        }
                    });
        }
    }

    /** Sends {@code out} again 1, 2, 4, 8 rounds later while readers would still take it, else counts it failed. */
    private void failedOnce(Outgoing out, Throwable error) {
        if (out.attempts() < MAX_ATTEMPTS && recent(out) && retries.size() < SEND_BATCH && !closed) {
            // Later each time: a stalled Redis is not sent the same records every round.
            retries.add(new Outgoing(out.number(), out.body(), out.attempts() + 1,
                    roundsRun.get() + (1L << (out.attempts() - 1))));
            return;
        }
        failed.incrementAndGet();
        warnings.warn("shared journal " + stream + ": a record was not appended after " + out.attempts()
                + " attempts (" + error + ")");
    }

    /**
     * Whether {@code out} is within half a {@link SequenceWindow} of the newest record: sent now, it lands within the
     * window (fewer than {@link #SEND_BATCH} more can land before it), so readers take it rather than refuse it.
     */
    private boolean recent(Outgoing out) {
        return sequence.get() - out.number() < SequenceWindow.SIZE / 2;
    }

    /** A record's fields: its origin, its sequence number and the record, signed over all three. */
    private Outgoing outgoing(String record) {
        long n = sequence.incrementAndGet();
        String number = Long.toString(n);
        byte[] signed = signer.sign(JournalIntake.macKey(stream, originText, number),
                record.getBytes(StandardCharsets.UTF_8));
        return new Outgoing(n, Map.of(ORIGIN, origin, SEQUENCE, number.getBytes(StandardCharsets.US_ASCII),
                RECORD, signed), 1, 0);
    }

    @SuppressWarnings("unchecked") // one stream offset, passed as Lettuce's varargs
    private void read(RedisClusterAsyncCommands<String, byte[]> commands) {
        if (!reading.compareAndSet(false, true)) {
            return; // the previous read is still under way
        }
        commands.xread(XReadArgs.Builder.count(READ_BATCH), XReadArgs.StreamOffset.from(stream, lastId))
                .whenComplete((messages, error) -> {
                    try {
                        if (error != null) {
                            warnings.warn("shared journal " + stream + ": not read (" + error + ")");
                            return;
                        }
                        deliver(messages);
                    } finally {
                        reading.set(false);
                    }
                    if (messages != null && messages.size() >= READ_BATCH && !closed) {
                        resources.eventExecutorGroup().execute(() -> read(commands)); // more are waiting
                    } else if (error == null) {
                        caughtUp.complete(null);
                    }
                });
    }

    private void deliver(List<StreamMessage<String, byte[]>> messages) {
        if (messages == null) {
            return;
        }
        for (StreamMessage<String, byte[]> m : messages) {
            lastId = m.getId();
            byte[] from = m.getBody().get(ORIGIN);
            byte[] record = m.getBody().get(RECORD);
            if (from == null || record == null || Arrays.equals(from, origin)) {
                continue; // this gateway's own (already filed), or not a journal record
            }
            JournalIntake.Offered offered = intake.offer(new String(from, StandardCharsets.UTF_8),
                    m.getBody().get(SEQUENCE), record);
            if (offered.outcome() == JournalIntake.Outcome.DUPLICATE) {
                duplicates.incrementAndGet(); // an append sent again after a timeout, whose first send had landed
                continue;
            }
            if (offered.outcome() == JournalIntake.Outcome.REFUSED) {
                refused.incrementAndGet();
                warnings.warn("shared journal " + stream + ": record " + m.getId() + " refused (not signed with this"
                        + " gateway's key, or a copy of an old record)");
                continue;
            }
            received.incrementAndGet();
            try {
                reader.read(m.getId(), offered.text());
            } catch (RuntimeException e) {
                warnings.warn("shared journal " + stream + ": a record was not taken (" + e + ")");
            }
        }
    }

    /** Sends what is queued (waiting at most a second for Redis to take it), then lets go of the connection. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ScheduledFuture<?> r = rounds;
        if (r != null) {
            r.cancel(false);
        }
        RedisConnector.Connected c = connected;
        if (c != null && c.connection().isOpen() && !(pending.isEmpty() && retries.isEmpty())) {
            List<CompletableFuture<String>> last = new ArrayList<>();
            List<Outgoing> batch = new ArrayList<>(retries);
            List<String> records = new ArrayList<>();
            pending.drainTo(records);
            records.forEach(record -> batch.add(outgoing(record)));
            for (Outgoing out : batch) {
                last.add(c.commands().xadd(stream, trim, out.body()).toCompletableFuture());
            }
            try {
                CompletableFuture.allOf(last.toArray(CompletableFuture<?>[]::new)).get(1, TimeUnit.SECONDS);
                sent.addAndGet(batch.size());
            } catch (Exception e) {
                warnings.warn("shared journal " + stream + ": the last records were not all appended (" + e + ")");
            }
        }
        RedisShutdown.of(connector.client(), 100, "shared journal");
        resources.shutdown(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3000);
    }
}
