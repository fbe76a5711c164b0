package io.cachegate.cli;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.AnswerBook;
import io.cachegate.simulator.ModelCard;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import io.cachegate.simulator.SimulatorStats;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cachegate simulate-backend}: runs one or more OpenAI-compatible backend simulator replicas
 * until the JVM is stopped. A shutdown hook closes every replica at once, with a bounded wait, so
 * SIGTERM ends the process promptly.
 */
@Command(name = "simulate-backend", mixinStandardHelpOptions = true,
        description = "Runs OpenAI-compatible backend simulator replicas (vLLM wire format) with deterministic answers, "
                + "a latency model, a concurrency and throughput limit, a prefix cache, vLLM's /metrics "
                + "and fault injection.")
public final class SimulateBackendCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "8000",
            description = "Port to bind, 0 for any; replica i binds port + i (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--replicas", defaultValue = "1",
            description = "Independent replicas, each with its own queue, prefix cache and stats "
                    + "(default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--ttft-ms", defaultValue = "0", description = "Fixed time to first token in ms (default: ${DEFAULT-VALUE}).")
    private long ttftMs;

    @Option(names = "--prefill-ms-per-token", defaultValue = "0",
            description = "Added to the time to first token per prompt token not covered by a prefix-cache hit, in ms "
                    + "(default: ${DEFAULT-VALUE}).")
    private double prefillMsPerToken;

    @Option(names = "--tpot-ms", defaultValue = "0", description = "Time per output token in ms (default: ${DEFAULT-VALUE}).")
    private double tpotMs;

    @Option(names = "--tokens-per-second", defaultValue = "0",
            description = "Decode throughput of a replica shared by its running requests: time per output token = "
                    + "max(tpot, running / tokens-per-second); 0 = unlimited (default: ${DEFAULT-VALUE}).")
    private double tokensPerSecond;

    @Option(names = "--shared-prefill", defaultValue = "false",
            description = "A replica computes one prefill at a time, first come first served, as an engine's steps "
                    + "share one accelerator: a prompt's first token waits for the prefills queued before it; off, every "
                    + "running request prefills at its own pace (default: ${DEFAULT-VALUE}).")
    private boolean sharedPrefill;

    @Option(names = "--prefix-cache-blocks", defaultValue = "0",
            description = "Prefix-cache capacity of a replica in blocks (token blocks with --kv-events); cached "
                    + "blocks skip their prefill; a prompt's blocks are stored at its first token and held until the "
                    + "request ends, the least recently released evicted first; "
                    + "0 = off, or " + SimulatorOptions.DEFAULT_KV_CACHE_BLOCKS
                    + " with --kv-events (default: ${DEFAULT-VALUE}).")
    private int prefixCacheBlocks;

    @Option(names = "--kv-events",
            description = "Token-based prefix cache publishing vLLM's KV-cache events (BlockStored, BlockRemoved, "
                    + "AllBlocksCleared) on a ZeroMQ PUB socket per replica, with a replay socket on the next port.")
    private boolean kvEvents;

    @Option(names = "--kv-block-size", defaultValue = "" + SimulatorOptions.KvEvents.DEFAULT_BLOCK_SIZE,
            description = "Tokens per prefix-cache block with --kv-events (default: ${DEFAULT-VALUE}).")
    private int kvBlockSize;

    @Option(names = "--kv-tokenizer", defaultValue = "bundled", paramLabel = "bundled|FILE",
            description = "Tokenizer of the prompts with --kv-events: bundled (bge-small-en-v1.5's, the gateway's "
                    + "'bundled') or a HuggingFace tokenizer.json (default: ${DEFAULT-VALUE}).")
    private String kvTokenizer;

    @Option(names = "--kv-events-port", defaultValue = "0",
            description = "Replica i publishes KV events on port + 2i and answers replays on port + 2i + 1; "
                    + "0 = free ports, printed at start (default: ${DEFAULT-VALUE}).")
    private int kvEventsPort;

    @Option(names = "--kv-replay-buffer", defaultValue = "" + SimulatorOptions.KvEvents.DEFAULT_REPLAY_BUFFER,
            description = "Event batches each replica keeps for replay (default: ${DEFAULT-VALUE}).")
    private int kvReplayBuffer;

    @Option(names = "--prefix-block-chars", defaultValue = "" + SimulatorOptions.DEFAULT_PREFIX_BLOCK_CHARS,
            description = "Prompt characters per prefix-cache block (default: ${DEFAULT-VALUE}).")
    private int prefixBlockChars;

    @Option(names = "--max-concurrency", defaultValue = "256",
            description = "Requests generating at once; the rest queue (default: ${DEFAULT-VALUE}).")
    private int maxConcurrency;

    @Option(names = "--max-queue", defaultValue = "10000",
            description = "Requests that may wait; beyond it 503 (default: ${DEFAULT-VALUE}).")
    private int maxQueue;

    @Option(names = "--error-rate", defaultValue = "0",
            description = "Fraction of requests answered with 500, 0 to 1 (default: ${DEFAULT-VALUE}).")
    private double errorRate;

    @Option(names = "--hang-rate", defaultValue = "0",
            description = "Fraction of requests never answered, 0 to 1 (default: ${DEFAULT-VALUE}).")
    private double hangRate;

    @Option(names = "--default-max-tokens", defaultValue = "64",
            description = "Output tokens when a request gives no max_tokens (default: ${DEFAULT-VALUE}).")
    private int defaultMaxTokens;

    @Option(names = "--models", split = ",", defaultValue = "llama-3.1-8b,qwen2.5-0.5b",
            description = "Served model ids, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<String> models;

    @Option(names = "--answers", paramLabel = "FILE",
            description = "A TSV of text<TAB>label rows (one header line, e.g. ../shared/data/banking77_train.tsv): "
                    + "a request whose last user message is one of its texts gets its label's canonical answer, "
                    + "the same for every text of the label; others are generated as usual.")
    private Path answers;

    @Option(names = "--model-card", paramLabel = "ID=[ROOT][@REVISION]",
            description = "The card a model reports in /v1/models at start, e.g. llama-3.1-8b=@r1 or "
                    + "llama-3.1-8b=meta-llama/Llama-3.1-8B@r1 (default: root = id, no revision); repeatable. "
                    + "POST /sim/models/{id} {\"root\":…,\"revision\":…} changes it while running.")
    private List<String> modelCards;

    @Option(names = "--seed", defaultValue = "42",
            description = "Seed of the fault injection; replica i uses seed + i (default: ${DEFAULT-VALUE}).")
    private long seed;

    private static AnswerBook loadAnswers(Path file) {
        try {
            return AnswerBook.load(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException("--answers: no such file: " + file);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--answers: cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Where a replica publishes its KV events, for its start line; empty without them. */
    private static String kvEventsNote(SimulatorStats stats) {
        SimulatorStats.KvEventStats kv = stats.kvEvents();
        return kv == null ? "" : ", kv events on " + kv.endpoint() + " (replay " + kv.replayEndpoint() + ")";
    }

    @Override
    public Integer call() throws InterruptedException {
        SimulatorOptions options;
        try {
            options = new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                    errorRate, hangRate, defaultMaxTokens, models, seed, tokensPerSecond, prefixCacheBlocks,
                    prefixBlockChars, answers == null ? AnswerBook.NONE : loadAnswers(answers),
                    modelCards == null ? List.of() : modelCards.stream().map(ModelCard::parse).toList(),
                    kvEvents ? new SimulatorOptions.KvEvents(true, kvBlockSize, kvTokenizer, kvEventsPort,
                            kvReplayBuffer) : SimulatorOptions.KvEvents.OFF, sharedPrefill);
            if (replicas < 1) {
                throw new IllegalArgumentException("--replicas must be >= 1, was " + replicas);
            }
            if (port != 0 && port + replicas - 1 > 65535) {
                throw new IllegalArgumentException("--port + --replicas - 1 must be <= 65535");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        SimulatorReplicas fleet;
        try {
            fleet = BackendSimulator.startReplicas(replicas, options); // a bad tokenizer or taken port fails here
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                fleet.close(); // every replica at once; each wait is bounded
            } finally {
                stopped.countDown();
            }
        }, "simulator-shutdown"));
        PrintWriter out = spec.commandLine().getOut();
        List<URI> urls = fleet.baseUrls();
        if (urls.size() == 1) {
            out.println("simulator listening on " + urls.get(0) + kvEventsNote(fleet.stats(0)));
        } else {
            for (int i = 0; i < urls.size(); i++) {
                out.println("simulator replica " + i + " listening on " + urls.get(i) + kvEventsNote(fleet.stats(i)));
            }
        }
        out.flush();
        stopped.await();
        return 0;
    }
}
