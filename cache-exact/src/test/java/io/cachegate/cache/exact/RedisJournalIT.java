package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testing.RedisTestCluster;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisJournal} against real redis-server processes: gateways read each other's records in order and never
 * their own, resume after a saved position, the stream stays trimmed, a Redis that dies and comes back loses
 * nothing that was queued within the bound, an append that timed out in a stall is sent again and read once, and a
 * signed journal refuses planted records and old copies, also after a restart from its saved position.
 */
class RedisJournalIT {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final EntrySigner UNSIGNED = EntrySigner.none();
    private static final RedisJournal.Position START = RedisJournal.Position.start();

    @Test
    void eachReadsTheOthersRecords_inOrder_neverItsOwn() throws Exception {
        String stream = "test:journal:" + UUID.randomUUID();
        List<String> atA = Collections.synchronizedList(new ArrayList<>());
        List<String> atB = Collections.synchronizedList(new ArrayList<>());
        try (RedisJournal a = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 100, TIMEOUT,
                UNSIGNED, (id, r) -> atA.add(r));
             RedisJournal b = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 100, TIMEOUT,
                     UNSIGNED, (id, r) -> atB.add(r))) {
            for (int i = 0; i < 50; i++) {
                a.append("a" + i);
                if (i % 10 == 0) {
                    b.append("b" + i);
                }
                Thread.sleep(2); // spread over several rounds
            }
            assertThat(Poll.until(WAIT, () -> atB.size() == 50 && atA.size() == 5))
                    .as("A read %s, B read %s", atA, atB).isTrue();
            assertThat(atB).as("A's records at B, in A's order").containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, 50).mapToObj(i -> "a" + i).toList());
            assertThat(atA).containsExactly("b0", "b10", "b20", "b30", "b40");
            Thread.sleep(3 * RedisJournal.POLL_MILLIS);
            assertThat(atB).as("nothing read twice, nothing of B's own").hasSize(50);
            assertThat(a.counts().sent()).isEqualTo(50);
            assertThat(a.counts().received()).isEqualTo(5);
            assertThat(b.counts().received()).isEqualTo(50);
        }
    }

    @Test
    void aRestartUnderItsOriginFromItsPosition_readsOnlyWhatCameAfter() throws Exception {
        String stream = "test:journal:" + UUID.randomUUID();
        List<String> first = Collections.synchronizedList(new ArrayList<>());
        String origin;
        RedisJournal.Position position;
        try (RedisJournal writer = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 100,
                TIMEOUT, UNSIGNED, (id, r) -> { });
             RedisJournal reader = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 100,
                     TIMEOUT, UNSIGNED, (id, r) -> first.add(r))) {
            writer.append("before-1");
            writer.append("before-2");
            assertThat(Poll.until(WAIT, () -> first.size() == 2)).isTrue();
            origin = reader.origin();
            position = reader.position();
            reader.append("own, after the position"); // the reader's own: skipped again at its restart
            assertThat(Poll.until(WAIT, () -> reader.counts().sent() == 1)).isTrue();
            writer.append("after");
            assertThat(Poll.until(WAIT, () -> first.size() == 3)).isTrue();
        }
        List<String> resumed = Collections.synchronizedList(new ArrayList<>());
        List<String> fresh = Collections.synchronizedList(new ArrayList<>());
        try (RedisJournal again = RedisJournal.open(RedisTestServer.sharedUri(), stream, position, 10_000,
                100, TIMEOUT, UNSIGNED, (id, r) -> resumed.add(r));
             RedisJournal newcomer = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 100,
                     TIMEOUT, UNSIGNED, (id, r) -> fresh.add(r))) {
            assertThat(Poll.until(WAIT, () -> fresh.size() == 4)).as("a newcomer reads the whole stream: %s", fresh)
                    .isTrue();
            assertThat(newcomer.counts().received()).isEqualTo(4);
            assertThat(newcomer.caughtUp()).as("the stream read to its end").isDone();
            assertThat(Poll.until(WAIT, () -> !resumed.isEmpty())).isTrue();
            assertThat(again.origin()).isEqualTo(origin);
            Thread.sleep(3 * RedisJournal.POLL_MILLIS);
            assertThat(resumed).as("resumed after its position, its own skipped").containsExactly("after");
        }
    }

    @Test
    void signed_aRecordPlantedUnsigned_signedWithAnotherKey_orCopied_isRefused() throws Exception {
        String stream = "test:journal:" + UUID.randomUUID();
        EntrySigner key = EntrySigner.hmacSha256("k".repeat(32).getBytes(StandardCharsets.UTF_8));
        EntrySigner other = EntrySigner.hmacSha256("o".repeat(32).getBytes(StandardCharsets.UTF_8));
        List<String> read = Collections.synchronizedList(new ArrayList<>());
        String uri = RedisTestServer.sharedUri();
        try (RedisJournal reader = RedisJournal.open(uri, stream, START, 10_000, 100, TIMEOUT, key,
                (id, r) -> read.add(r));
             RedisJournal signed = RedisJournal.open(uri, stream, START, 10_000, 10_000, TIMEOUT, key,
                     (id, r) -> { });
             RedisJournal unsigned = RedisJournal.open(uri, stream, START, 10_000, 100, TIMEOUT, UNSIGNED,
                     (id, r) -> { });
             RedisJournal otherKey = RedisJournal.open(uri, stream, START, 10_000, 100, TIMEOUT, other,
                     (id, r) -> { })) {
            signed.append("genuine 1");
            unsigned.append("planted, unsigned");
            otherKey.append("planted, another key");
            signed.append("genuine 2");
            assertThat(Poll.until(WAIT, () -> read.size() == 2 && reader.counts().refused() == 2))
                    .as("read %s, %s", read, reader.counts()).isTrue();
            assertThat(read).containsExactly("genuine 1", "genuine 2");

            // Whoever can write to Redis copies a genuine record, byte for byte, to the stream's end: a recent one is
            // what an append sent again leaves (skipped, counted a duplicate), one older than any retry is refused.
            copyFirstRecord(uri, stream, signed.origin());
            signed.append("genuine 3");
            assertThat(Poll.until(WAIT, () -> read.size() == 3 && reader.counts().duplicates() == 1))
                    .as("read %s, %s", read, reader.counts()).isTrue();
            assertThat(read).as("the copy not taken").containsExactly("genuine 1", "genuine 2", "genuine 3");
            for (int i = 0; i < SequenceWindow.SIZE; i++) {
                signed.append("later " + i);
            }
            assertThat(Poll.until(WAIT, () -> read.size() == 3 + SequenceWindow.SIZE)).isTrue();
            copyFirstRecord(uri, stream, signed.origin());
            signed.append("genuine 4");
            assertThat(Poll.until(WAIT, () -> read.size() == 4 + SequenceWindow.SIZE
                    && reader.counts().refused() == 3)).as("%s", reader.counts()).isTrue();
            assertThat(read.get(read.size() - 1)).as("the old copy refused").isEqualTo("genuine 4");
            assertThat(unsigned.counts().received() + otherKey.counts().received())
                    .as("an unsigned journal takes the signed records as they are").isGreaterThan(0);
        }
    }

    @Test
    void signed_aReaderResumedAfterItsSavedPosition_refusesCopiesOfWhatItTookBefore() throws Exception {
        String stream = "test:journal:" + UUID.randomUUID();
        EntrySigner key = EntrySigner.hmacSha256("k".repeat(32).getBytes(StandardCharsets.UTF_8));
        String uri = RedisTestServer.sharedUri();
        List<String> before = Collections.synchronizedList(new ArrayList<>());
        RedisJournal.Position saved;
        try (RedisJournal signed = RedisJournal.open(uri, stream, START, 10_000, 100, TIMEOUT, key, (id, r) -> { })) {
            try (RedisJournal reader = RedisJournal.open(uri, stream, START, 10_000, 100, TIMEOUT, key,
                    (id, r) -> before.add(r))) {
                for (int i = 0; i < 3; i++) {
                    signed.append("genuine " + i);
                }
                assertThat(Poll.until(WAIT, () -> before.size() == 3)).isTrue();
                saved = reader.position();
            }
            assertThat(saved.taken()).containsOnlyKeys(signed.origin());

            // While the reader is down, whoever can write to Redis copies the writer's records to the stream's end.
            copyRecords(uri, stream, signed.origin());
            signed.append("genuine 3");
            List<String> resumed = Collections.synchronizedList(new ArrayList<>());
            List<String> forgetful = Collections.synchronizedList(new ArrayList<>());
            try (RedisJournal again = RedisJournal.open(uri, stream, saved, 10_000, 100, TIMEOUT, key,
                    (id, r) -> resumed.add(r));
                 RedisJournal withoutNumbers = RedisJournal.open(uri, stream,
                         new RedisJournal.Position(null, saved.after(), java.util.Map.of()), 10_000, 100, TIMEOUT, key,
                         (id, r) -> forgetful.add(r))) {
                assertThat(Poll.until(WAIT, () -> resumed.contains("genuine 3") && forgetful.contains("genuine 3")))
                        .as("resumed %s, forgetful %s", resumed, forgetful).isTrue();
                assertThat(resumed).as("the copies not taken again").containsExactly("genuine 3");
                assertThat(again.counts().duplicates()).isEqualTo(3);
                assertThat(forgetful).as("a reader that forgot its numbers takes them: what the saved ones prevent")
                        .containsExactly("genuine 0", "genuine 1", "genuine 2", "genuine 3");
                assertThat(withoutNumbers.counts().duplicates()).isZero();
            }
        }
    }

    @Test
    void theStreamIsTrimmed_toAboutItsBound() throws Exception {
        String stream = "test:journal:" + UUID.randomUUID();
        try (RedisJournal j = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 1_000, 10_000, TIMEOUT,
                UNSIGNED, (id, r) -> { })) {
            for (int i = 0; i < 5_000; i++) {
                assertThat(j.append("record " + i)).isTrue();
            }
            // Sent or failed (a Redis stall past the command timeout fails the records in flight): all are through.
            assertThat(Poll.until(WAIT, () -> j.counts().sent() + j.counts().failed() == 5_000)).as("%s", j.counts())
                    .isTrue();
            long length = Long.parseLong(RedisTestServer.command(RedisTestServer.sharedUri(), "XLEN", stream).strip()
                    .replace(":", ""));
            // Approximate trimming drops whole nodes of the stream (100 entries by default): a little over the bound.
            assertThat(length).isBetween(1_000L, 1_200L);
            RedisTestServer.command(RedisTestServer.sharedUri(), "DEL", stream);
        }
    }

    @Test
    void aRedisThatDiesAndComesBack_getsWhatWasQueued_withinTheBound() throws Exception {
        try (RedisTestServer redis = RedisTestServer.startPrivate()) {
            String stream = "test:journal:dying";
            List<String> read = Collections.synchronizedList(new ArrayList<>());
            try (RedisJournal writer = RedisJournal.open(redis.uri(), stream, START, 10_000, 20, TIMEOUT,
                    UNSIGNED, (id, r) -> { });
                 RedisJournal reader = RedisJournal.open(redis.uri(), stream, START, 10_000, 20, TIMEOUT,
                         UNSIGNED, (id, r) -> read.add(r))) {
                writer.append("before");
                assertThat(Poll.until(WAIT, () -> read.size() == 1)).isTrue();

                redis.stop();
                assertThat(Poll.until(WAIT, () -> !writer.connected())).as("the writer saw Redis go").isTrue();
                for (int i = 0; i < 25; i++) {
                    writer.append("during " + i); // 20 fit in the queue, 5 are dropped
                }
                assertThat(writer.counts().dropped()).isEqualTo(5);
                redis.start();

                assertThat(Poll.until(WAIT, () -> read.size() == 21)).as("read after the restart: %s", read).isTrue();
                assertThat(reader.counts().received()).isEqualTo(21);
                assertThat(read.subList(1, 21)).containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, 20).mapToObj(i -> "during " + i).toList());
                assertThat(writer.counts().failed()).isZero();
            }
        }
    }

    @Test
    void overARedisCluster_theStreamLivesOnOneMaster_andEachReadsTheOthers() throws Exception {
        try (RedisTestCluster cluster = RedisTestCluster.start()) {
            String stream = "test:journal:" + UUID.randomUUID();
            List<String> read = Collections.synchronizedList(new ArrayList<>());
            try (RedisJournal writer = RedisJournal.open(cluster.uri(), stream, START, 10_000, 100, TIMEOUT,
                    UNSIGNED, (id, r) -> { });
                 RedisJournal reader = RedisJournal.open(cluster.uri(), stream, START, 10_000, 100, TIMEOUT,
                         UNSIGNED, (id, r) -> read.add(r))) {
                for (int i = 0; i < 30; i++) {
                    writer.append("r" + i);
                }
                assertThat(Poll.until(WAIT, () -> read.size() == 30)).as("read %s, %s", read, reader.counts()).isTrue();
                assertThat(read.get(29)).isEqualTo("r29");
                assertThat(writer.counts().failed()).isZero();
            }
        }
    }

    @Test
    void aNewcomerCatchesUp_onAStreamLongerThanOneRead() throws Exception {
        String stream = "test:journal:" + UUID.randomUUID();
        try (RedisJournal writer = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 5_000,
                TIMEOUT, UNSIGNED, (id, r) -> { })) {
            for (int i = 0; i < 2_500; i++) {
                writer.append("r" + i);
            }
            // Every record sent or failed. A stall of Redis past the command timeout has the records in flight sent
            // again (CI saw one), so the stream may hold a record twice, and one sent again after later ones.
            assertThat(Poll.until(WAIT, () -> writer.counts().sent() + writer.counts().failed() == 2_500)).isTrue();
        }
        List<String> inStream = distinctRecords(RedisTestServer.sharedUri(), stream);
        assertThat(inStream.size()).as("more than one read's worth in the stream")
                .isGreaterThan(RedisJournal.READ_BATCH);
        List<String> read = Collections.synchronizedList(new ArrayList<>());
        try (RedisJournal newcomer = RedisJournal.open(RedisTestServer.sharedUri(), stream, START, 10_000, 100,
                TIMEOUT, UNSIGNED, (id, r) -> read.add(r))) {
            newcomer.caughtUp().get(15, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(read).as("every record of the stream once, in its order, over reads of at most %d",
                    RedisJournal.READ_BATCH).containsExactlyElementsOf(inStream);
        }
        RedisTestServer.command(RedisTestServer.sharedUri(), "DEL", stream);
    }

    @Test
    void appendsThatTimedOutInAStall_areSentAgain_andEachIsReadOnce() throws Exception {
        try (RedisTestServer redis = RedisTestServer.startPrivate("--enable-debug-command", "local")) {
            String stream = "test:journal:stalled";
            List<String> read = Collections.synchronizedList(new ArrayList<>());
            try (RedisJournal writer = RedisJournal.open(redis.uri(), stream, START, 10_000, 100,
                    Duration.ofMillis(200), UNSIGNED, (id, r) -> { });
                 RedisJournal reader = RedisJournal.open(redis.uri(), stream, START, 10_000, 100, TIMEOUT,
                         UNSIGNED, (id, r) -> read.add(r))) {
                writer.append("before");
                assertThat(Poll.until(WAIT, () -> read.size() == 1)).isTrue();

                Thread stall = new Thread(() -> RedisTestServer.command(redis.uri(), "DEBUG", "SLEEP", "1"));
                stall.start();
                Thread.sleep(100); // Redis is asleep: the appends below wait past the writer's 200 ms, and land after
                List<String> during = java.util.stream.IntStream.range(0, 10).mapToObj(i -> "during " + i).toList();
                during.forEach(writer::append);
                stall.join();

                assertThat(Poll.until(WAIT, () -> writer.counts().sent() == 11)).as("%s", writer.counts()).isTrue();
                assertThat(Poll.until(WAIT, () -> read.size() >= 11)).as("read %s", read).isTrue();
                Thread.sleep(3 * RedisJournal.POLL_MILLIS);
                long length = Long.parseLong(RedisTestServer.command(redis.uri(), "XLEN", stream).strip()
                        .replace(":", ""));
                assertThat(length).as("the appends that timed out landed, and so did their second sends")
                        .isGreaterThan(11);
                assertThat(read).as("each record once").hasSize(11).containsAll(during);
                assertThat(writer.counts().failed()).isZero();
                assertThat(reader.counts().duplicates()).as("the copies, not taken").isEqualTo(length - 11);
                assertThat(reader.counts().refused()).as("a copy of a retry is no forgery").isZero();
            }
        }
    }

    /** Appends a byte-for-byte copy of the first record {@code origin} wrote, as whoever can write to Redis could. */
    private static void copyFirstRecord(String uri, String stream, String origin) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(uri);
        try (var raw = client.connect(RedisConnector.CODEC)) {
            var first = raw.sync().xrange(stream, io.lettuce.core.Range.create("-", "+")).stream()
                    .filter(m -> origin.equals(field(m, RedisJournal.ORIGIN)))
                    .findFirst().orElseThrow();
            raw.sync().xadd(stream, first.getBody());
        } finally {
            client.shutdown();
        }
    }

    /** Copies every record {@code origin} wrote, byte for byte, to the end of the stream: a replay. */
    private static void copyRecords(String uri, String stream, String origin) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(uri);
        try (var raw = client.connect(RedisConnector.CODEC)) {
            for (var m : raw.sync().xrange(stream, io.lettuce.core.Range.create("-", "+"))) {
                if (origin.equals(field(m, RedisJournal.ORIGIN))) {
                    raw.sync().xadd(stream, m.getBody());
                }
            }
        } finally {
            client.shutdown();
        }
    }

    /** One field of a stream record, as text. */
    private static String field(io.lettuce.core.StreamMessage<String, byte[]> m, String name) {
        return new String(m.getBody().get(name), StandardCharsets.UTF_8);
    }

    /** The records of {@code stream} in its order, each (origin, number) once: what a reader takes of it. */
    private static List<String> distinctRecords(String uri, String stream) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(uri);
        try (var raw = client.connect(RedisConnector.CODEC)) {
            java.util.Set<String> seen = new java.util.HashSet<>();
            List<String> records = new ArrayList<>();
            for (var m : raw.sync().xrange(stream, io.lettuce.core.Range.create("-", "+"))) {
                if (seen.add(field(m, RedisJournal.ORIGIN) + "/" + field(m, RedisJournal.SEQUENCE))) {
                    records.add(field(m, RedisJournal.RECORD));
                }
            }
            return records;
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aJournalWithNoRedis_neitherBlocksNorGrowsBeyondItsBound() {
        try (RedisJournal j = RedisJournal.open("redis://127.0.0.1:" + RedisTestServer.freePort(), "test:journal:none",
                START, 1_000, 10, TIMEOUT, UNSIGNED, (id, r) -> { })) {
            long start = System.nanoTime();
            int queued = 0;
            for (int i = 0; i < 1_000; i++) {
                queued += j.append("r" + i) ? 1 : 0;
            }
            assertThat(queued).isEqualTo(10);
            assertThat(j.counts().dropped()).isEqualTo(990);
            assertThat(j.caughtUp()).as("nothing read while Redis is away").isNotDone();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        }
    }
}
