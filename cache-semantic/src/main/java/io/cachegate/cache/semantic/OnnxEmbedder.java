package io.cachegate.cache.semantic;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import io.cachegate.config.SemanticCacheSettings;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A sentence-embedding model on ONNX Runtime with its HuggingFace tokenizer: one blocking call embeds one
 * batch. Thread-safe, but meant to be driven by {@link MicroBatchingEmbedder}, which keeps callers off it.
 */
public final class OnnxEmbedder implements EmbedderModel {

    /**
     * ONNX Runtime 1.29 recurses some 12,000 frames deep while creating its environment on these
     * machines, which overflows the JVM's default 1 MiB thread stack (a SIGSEGV, not an exception).
     */
    static final long NATIVE_STACK_BYTES = 32L << 20;

    private static final String INPUT_IDS = "input_ids";
    private static final String ATTENTION_MASK = "attention_mask";
    private static final String TOKEN_TYPE_IDS = "token_type_ids";

    private final EmbedderSettings settings;
    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final Set<String> inputs;
    private final String output;
    private final boolean pooledOutput;
    private final int dimension;
    private final String modelId;

    private OnnxEmbedder(EmbedderSettings settings, OnnxModelFiles files) throws OrtException, IOException {
        this.settings = settings;
        this.environment = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(settings.effectiveIntraOpThreads());
            options.setInterOpNumThreads(settings.interOpThreads());
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            // Spinning intra-op threads keep cores busy between calls, taking them from the event loops that
            // share this process; on a contended 2-core machine intra_op 2 fell to a tenth of intra_op 1.
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            this.session = environment.createSession(files.model(), options);
        }
        this.tokenizer = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(files.tokenizer()), Map.of(
                "truncation", "true",
                "maxLength", Integer.toString(settings.maxTokens()),
                "padding", "true"));
        try {
            this.inputs = session.getInputNames();
            if (!inputs.contains(INPUT_IDS) || !inputs.contains(ATTENTION_MASK)
                    || !Set.of(INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS).containsAll(inputs)) {
                throw new IllegalArgumentException("embedding model inputs " + inputs + " are not a BERT-style "
                        + "sentence encoder's (input_ids, attention_mask and optionally token_type_ids)");
            }
            Map.Entry<String, long[]> out = chooseOutput(session.getOutputInfo());
            this.output = out.getKey();
            this.pooledOutput = out.getValue().length == 2;
            long lastDimension = out.getValue()[out.getValue().length - 1];
            this.dimension = lastDimension > 0 ? (int) lastDimension : probeDimension();
        } catch (OrtException | RuntimeException e) {
            close();
            throw e;
        }
        this.modelId = files.id(settings);
    }

    /**
     * Loads the model of the settings (the jar's bge-small-en-v1.5, int8 for {@code bundled}, fp32 for
     * {@code bundled-fp32}); blocks for the
     * second or two this takes.
     *
     * @throws IllegalArgumentException when the model is not a sentence encoder this class can drive
     * @throws UncheckedIOException when a model file cannot be read
     */
    public static OnnxEmbedder open(EmbedderSettings settings) {
        return open(settings, OnnxModelFiles.load(settings));
    }

    /**
     * Loads a model shipped on the class path as {@code NAME.onnx} and {@code NAME-tokenizer.json} (the layout
     * of the langchain4j embedding artifacts) with the runtime, pooling and truncation of the settings; their
     * {@code model} is ignored. For measuring other models beside the cache's, e.g. a second signal.
     */
    public static OnnxEmbedder openResource(String name, EmbedderSettings settings) {
        return open(settings, OnnxModelFiles.resources(name));
    }

    private static OnnxEmbedder open(EmbedderSettings settings, OnnxModelFiles files) {
        NativeLibraries.prepare();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread loader = new Thread(null, () -> {
            try {
                result.set(new OnnxEmbedder(settings, files));
            } catch (OrtException | IOException | RuntimeException e) {
                result.set(e);
            }
        }, "cachegate-embedder-load", NATIVE_STACK_BYTES);
        loader.start();
        try {
            loader.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading the embedding model", e);
        }
        Object loaded = result.get();
        if (loaded instanceof OnnxEmbedder embedder) {
            return embedder;
        }
        if (loaded instanceof RuntimeException e) {
            throw e;
        }
        throw new IllegalStateException("cannot load embedding model " + files.name() + ": " + loaded,
                (Throwable) loaded);
    }

    /** Embeds one batch, blocking the calling thread for the model call. */
    @Override
    public float[][] embed(List<String> texts) throws OrtException {
        if (texts.isEmpty()) {
            return new float[0][];
        }
        Encoding[] encodings = tokenizer.batchEncode(texts);
        int batch = encodings.length;
        int tokens = encodings[0].getIds().length;
        long[] ids = new long[batch * tokens];
        long[] mask = new long[batch * tokens];
        long[] types = new long[batch * tokens];
        for (int b = 0; b < batch; b++) {
            // Padding is per batch, so every encoding has the length of the batch's longest text.
            System.arraycopy(encodings[b].getIds(), 0, ids, b * tokens, tokens);
            System.arraycopy(encodings[b].getAttentionMask(), 0, mask, b * tokens, tokens);
            System.arraycopy(encodings[b].getTypeIds(), 0, types, b * tokens, tokens);
        }
        long[] shape = {batch, tokens};
        Map<String, OnnxTensor> feed = new HashMap<>(4);
        try {
            feed.put(INPUT_IDS, OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape));
            feed.put(ATTENTION_MASK, OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape));
            if (inputs.contains(TOKEN_TYPE_IDS)) {
                feed.put(TOKEN_TYPE_IDS, OnnxTensor.createTensor(environment, LongBuffer.wrap(types), shape));
            }
            try (OrtSession.Result result = session.run(feed, Set.of(output))) {
                OnnxTensor hidden = (OnnxTensor) result.get(0);
                long[] outShape = hidden.getInfo().getShape();
                int width = (int) outShape[outShape.length - 1];
                FloatBuffer values = hidden.getFloatBuffer();
                if (pooledOutput) {
                    // The model pooled already: read its one row per text (as "CLS" of a one-token sequence).
                    return Pooling.pool(SemanticCacheSettings.Pooling.CLS, settings.normalize(), values, mask, batch, 1, width);
                }
                return Pooling.pool(settings.pooling(), settings.normalize(), values, mask, batch, tokens, width);
            }
        } finally {
            feed.values().forEach(OnnxTensor::close);
        }
    }

    @Override
    public int dimension() {
        return dimension;
    }

    @Override
    public String modelId() {
        return modelId;
    }

    EmbedderSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        tokenizer.close();
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException("cannot close the embedding model session", e);
        }
    }

    /** The token-level output (rank 3, e.g. last_hidden_state) if there is one, else a pooled one (rank 2). */
    private static Map.Entry<String, long[]> chooseOutput(Map<String, NodeInfo> outputs) {
        Map.Entry<String, long[]> pooled = null;
        for (Map.Entry<String, NodeInfo> entry : outputs.entrySet()) {
            if (entry.getValue().getInfo() instanceof TensorInfo info) {
                long[] shape = info.getShape();
                if (shape.length == 3) {
                    return Map.entry(entry.getKey(), shape);
                }
                if (shape.length == 2 && pooled == null) {
                    pooled = Map.entry(entry.getKey(), shape);
                }
            }
        }
        if (pooled == null) {
            throw new IllegalArgumentException("embedding model has no [batch, tokens, dimension] or"
                    + " [batch, dimension] float output: " + outputs.keySet());
        }
        return pooled;
    }

    private int probeDimension() throws OrtException {
        return embed(List.of("dimension"))[0].length;
    }
}
