package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.kv.KvEventSubscriber;
import io.cachegate.kv.KvFeed;
import io.cachegate.kv.ReplicaBlocks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench kv-events}: the lag of the gateway's KV-event subscriber (issue 33) at a given event rate.
 * A vLLM-style publisher (PUB socket on loopback, msgpack batches of {@code BlockStored} events, 16 tokens a block)
 * sends {@code --rate} events per second in batches of {@code --events-per-batch}, as an engine batches a scheduler
 * step's events; the gateway's {@link KvEventSubscriber} applies them to a block index; each batch's lag, from its
 * publisher's time stamp to its application, goes into a histogram after {@code --warmup}.
 */
@Command(name = "kv-events", mixinStandardHelpOptions = true,
        description = {
            "The KV-event subscriber's lag at --rate events/s: a vLLM-style publisher and the gateway's subscriber "
                    + "in this process, on loopback; p50, p99, p99.9 and max of the lag, and whether every batch "
                    + "was applied.",
            "Exit status 1 when a batch was lost or the p99 is above --max-p99-ms."
        })
final class BenchKvEventsCommand extends Scenario {

    @Option(names = "--rate", defaultValue = "10000", description = "Events per second (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--events-per-batch", defaultValue = "10",
            description = "Events per published batch (default ${DEFAULT-VALUE}).")
    int perBatch;

    @Option(names = "--max-p99-ms", defaultValue = "5", description = "The target (default ${DEFAULT-VALUE}).")
    double maxP99Ms;

    BenchKvEventsCommand() {
        super("kv-events", new ScenarioOptions("10s", "2s", 1, ""));
    }

    @Override
    void check(List<String> problems) {
        if (rate < 1 || perBatch < 1 || perBatch > rate) {
            problems.add("--rate and --events-per-batch must be positive, --events-per-batch at most --rate");
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        Recorder lags = new Recorder(3);
        long[] sent = new long[1];
        try (ZContext context = new ZContext()) {
            context.setLinger(0);
            ZMQ.Socket pub = context.createSocket(SocketType.PUB);
            pub.setSndHWM(1_000_000);
            int port = pub.bindToRandomPort("tcp://127.0.0.1");
            KvFeed feed = new KvFeed("bench", 0, "tcp://127.0.0.1:" + port, Optional.empty(),
                    new ReplicaBlocks(Integer.MAX_VALUE));
            boolean[] recording = new boolean[1];
            try (KvEventSubscriber subscriber = new KvEventSubscriber(List.of(feed), (f, nanos) -> {
                if (recording[0]) {
                    lags.recordValue(Math.max(1, nanos / 1_000));
                }
            }, Duration.ofSeconds(2), KvEventSubscriber.SnapshotSource.NONE).start()) {
                // The subscription reaches the publisher a moment after connecting: publish until it is heard.
                long seq = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (feed.lastSeq() < 0 && System.nanoTime() < deadline) {
                    send(pub, seq++, 1, seq * 1000);
                    Thread.sleep(10);
                }
                long firstMeasured = seq;
                long gapsBefore = feed.gaps(); // joining: the first batch heard is rarely number 0
                long period = TimeUnit.SECONDS.toNanos(1) * perBatch / rate;
                long start = System.nanoTime();
                long warmupEnd = start + options.warmup().toNanos();
                long end = warmupEnd + options.duration().toNanos();
                long n = 0;
                while (true) {
                    long due = start + n * period;
                    if (due - end >= 0) {
                        break;
                    }
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    recording[0] = due - warmupEnd >= 0;
                    send(pub, seq++, perBatch, 1_000_000 + n * perBatch);
                    n++;
                }
                sent[0] = n;
                long lastSeq = seq - 1;
                long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (feed.lastSeq() < lastSeq && System.nanoTime() < settle) {
                    Thread.sleep(10);
                }
                progress.info("%d batches of %d events sent after the %d that started the subscription; %d gaps "
                        + "since; last applied %d of %d; %d feed(s)", n, perBatch, firstMeasured, feed.gaps() - gapsBefore, feed.lastSeq(),
                        lastSeq, subscriber.feeds().size());
                if (feed.lastSeq() < 0) {
                    throw new Aborted("the subscriber heard nothing within 10 s");
                }
                return new Report(rate, perBatch, n, feed.lastSeq() == lastSeq && feed.gaps() == gapsBefore,
                        lags.getIntervalHistogram(), maxP99Ms);
            }
        }
    }

    /** One batch of {@code events} BlockStored events, each the first block of its own prompt. */
    private static void send(ZMQ.Socket pub, long seq, int events, long firstHash) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            Instant now = Instant.now();
            p.packArrayHeader(3).packDouble(now.getEpochSecond() + now.getNano() / 1e9).packArrayHeader(events);
            for (int e = 0; e < events; e++) {
                p.packMapHeader(6);
                p.packString("type").packString("BlockStored");
                p.packString("block_hashes").packArrayHeader(1).packLong(firstHash + e);
                p.packString("parent_block_hash").packNil();
                p.packString("token_ids").packArrayHeader(16);
                for (int t = 0; t < 16; t++) {
                    p.packInt((int) ((firstHash + e) * 16 + t));
                }
                p.packString("block_size").packInt(16);
                p.packString("medium").packString("GPU");
            }
            p.packInt(0);
            pub.sendMore(new byte[0]);
            pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
            pub.send(p.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lag histogram (microseconds) of the measured batches. */
    record Report(int rate, int perBatch, long batches, boolean allApplied, Histogram lag, double maxP99Ms)
            implements ScenarioReport {

        double ms(double percentile) {
            return lag.getTotalCount() == 0 ? Double.NaN : lag.getValueAtPercentile(percentile) / 1000.0;
        }

        @Override
        public String toText() {
            return String.format("%nKV events: %d events/s in batches of %d, %d batches measured (%d cores)%n"
                            + "lag p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; every batch applied: %s%n"
                            + "Target: p99 <= %.1f ms at this rate: %s%n",
                    rate, perBatch, lag.getTotalCount(), Runtime.getRuntime().availableProcessors(), ms(50), ms(99),
                    ms(99.9), lag.getMaxValue() / 1000.0, allApplied, maxP99Ms, ms(99) <= maxP99Ms ? "met" : "NOT met");
        }

        @Override
        public JsonNode json() {
            return BenchJson.object().put("events_per_second", rate).put("events_per_batch", perBatch)
                    .put("batches", lag.getTotalCount()).put("lag_p50_ms", ms(50)).put("lag_p99_ms", ms(99))
                    .put("lag_p999_ms", ms(99.9)).put("lag_max_ms", lag.getMaxValue() / 1000.0)
                    .put("all_applied", allApplied);
        }

        @Override
        public String failure() {
            if (!allApplied) {
                return "batches were lost";
            }
            return ms(99) <= maxP99Ms ? null : String.format("lag p99 %.2f ms above %.1f ms", ms(99), maxP99Ms);
        }
    }
}
