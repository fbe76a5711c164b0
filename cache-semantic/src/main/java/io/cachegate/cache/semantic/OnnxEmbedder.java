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
import java.lang.ref.SoftReference;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    /** What the fused model must embed as the unfused one does: a batch, so padding and broadcasting are covered. */
    static final List<String> FUSION_PROBES = List.of("How do I reset my card's PIN?",
            "Which countries can I send money to, and how long does a transfer take to arrive?", "ok");
    /**
     * The least cosine between a probe's fused and unfused vectors. The arithmetic is the same; with int8 weights the
     * activations' dynamic quantisation turns float rounding into ~0.998 (fp32: 1.0000), where a wrong rewrite gives
     * unrelated vectors.
     */
    static final double FUSION_MIN_COSINE = 0.99;
    /**
     * Timed pairs of calls, fused and unfused, before the fused model is kept (some 0.15 s at open): it pays on ONNX
     * Runtime 1.29, whose {@code LayerNormalization} kernel is 5× slower than its {@code SkipLayerNormalization},
     * and costs on 1.30, where it is the other way round (docs/caches.md).
     */
    static final int FUSION_TIMED_PAIRS = 15;
    private static final Logger LOG = LoggerFactory.getLogger(OnnxEmbedder.class);

    /** Whether the residual adds and layer normalisations run fused ({@link SkipLayerNormFusion}). */
    enum Fusion {
        /** The model as shipped. */
        NONE,
        /** Fused when ONNX Runtime takes the rewrite and it embeds the probes as the model as shipped does. */
        CHECKED,
        /** As {@link #CHECKED}, and only when it embeds faster on this runtime and machine: what the gateway serves. */
        WHEN_FASTER
    }

    private final EmbedderSettings settings;
    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final Set<String> inputs;
    private final String output;
    private final boolean pooledOutput;
    private final int dimension;
    private final String modelId;
    private final int fusedLayerNorms;

    private OnnxEmbedder(EmbedderSettings settings, OnnxModelFiles files, Fusion fusion)
            throws OrtException, IOException {
        this.settings = settings;
        this.environment = OrtEnvironment.getEnvironment();
        this.tokenizer = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(files.tokenizer()), Map.of(
                "truncation", "true",
                "maxLength", Integer.toString(settings.maxTokens()),
                "padding", "true"));
        // The same id fused or not: the same weights and arithmetic, whose float rounding moves the int8 model's
        // vectors less than batching does (docs/caches.md); a new id would rebuild every index and its evidence.
        this.modelId = files.id(settings);
        Optional<ServedModel> known = ServedModel.known(modelId, fusion);
        OrtSession reference = null; // the session serving when the choice is known, else the shipped one to check against
        try (OrtSession.SessionOptions options = options()) {
            reference = environment.createSession(known.map(ServedModel::model).orElse(files.model()), options);
            this.inputs = reference.getInputNames();
            if (!inputs.contains(INPUT_IDS) || !inputs.contains(ATTENTION_MASK)
                    || !Set.of(INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS).containsAll(inputs)) {
                throw new IllegalArgumentException("embedding model inputs " + inputs + " are not a BERT-style "
                        + "sentence encoder's (input_ids, attention_mask and optionally token_type_ids)");
            }
            Map.Entry<String, long[]> out = chooseOutput(reference.getOutputInfo());
            this.output = out.getKey();
            this.pooledOutput = out.getValue().length == 2;
            long lastDimension = out.getValue()[out.getValue().length - 1];
            this.dimension = lastDimension > 0 ? (int) lastDimension : embed(reference, List.of("dimension"))[0].length;
            if (known.isPresent() || fusion == Fusion.NONE) {
                this.session = reference;
                this.fusedLayerNorms = known.map(ServedModel::fused).orElse(0);
                return;
            }
            ServedModel served = fuse(reference, files, fusion);
            this.session = served.session();
            this.fusedLayerNorms = served.fused();
            if (served.session() != reference) {
                reference.close();
            }
            ServedModel.remember(served, fusion);
        } catch (OrtException | RuntimeException e) {
            tokenizer.close();
            if (reference != null) {
                reference.close();
            }
            throw e;
        }
    }

    /** The model with its residual adds and layer normalisations fused; unchanged when it cannot be read. */
    private static SkipLayerNormFusion.Result fusion(byte[] model, String name) {
        try {
            return SkipLayerNormFusion.fuse(model);
        } catch (IOException e) {
            LOG.warn("embedding model {}: cannot read it as an ONNX model ({}); serving it unfused", name, e.toString());
            return new SkipLayerNormFusion.Result(model, 0);
        }
    }

    /**
     * The model with {@link SkipLayerNormFusion}'s rewrite and a session of it, when ONNX Runtime takes it, it embeds
     * {@link #FUSION_PROBES} as the reference does and (under {@link Fusion#WHEN_FASTER}) it embeds faster; else the
     * model as shipped with the reference session.
     */
    private ServedModel fuse(OrtSession reference, OnnxModelFiles files, Fusion mode) throws OrtException {
        String name = files.name();
        ServedModel asShipped = new ServedModel(modelId, files.model(), 0, reference);
        SkipLayerNormFusion.Result fusion = fusion(files.model(), name);
        if (fusion.fused() == 0) {
            return asShipped;
        }
        float[][] expected = embed(reference, FUSION_PROBES);
        OrtSession fused;
        try (OrtSession.SessionOptions options = options()) {
            fused = environment.createSession(fusion.model(), options);
        } catch (OrtException e) {
            LOG.warn("embedding model {}: ONNX Runtime refused the fused layer normalisations ({}); serving it unfused",
                    name, e.getMessage());
            return asShipped;
        }
        float[][] actual;
        try {
            actual = embed(fused, FUSION_PROBES);
        } catch (OrtException | RuntimeException e) {
            return probeFailed(fused, name, e, asShipped);
        }
        double agreement = 1;
        for (int i = 0; i < expected.length; i++) {
            agreement = Math.min(agreement, Vectors.cosine(expected[i], actual[i]));
        }
        if (!(agreement >= FUSION_MIN_COSINE)) {
            fused.close();
            LOG.warn("embedding model {}: fused layer normalisations gave vectors at cosine {} of the unfused ones"
                    + " (at least {} wanted); serving it unfused", name, agreement, FUSION_MIN_COSINE);
            return asShipped;
        }
        String timing = "";
        if (mode == Fusion.WHEN_FASTER) {
            List<String> probe = List.of(FUSION_PROBES.get(1));
            CallRace.Outcome race;
            try {
                race = CallRace.race(() -> embed(fused, probe), () -> embed(reference, probe), FUSION_TIMED_PAIRS);
            } catch (Exception e) {
                return probeFailed(fused, name, e, asShipped);
            }
            timing = String.format(Locale.ROOT, "; a call %.2f ms against %.2f ms unfused, median ratio %.3f",
                    race.firstNanos() / 1e6, race.secondNanos() / 1e6, race.ratio());
            if (!race.firstFaster()) {
                fused.close();
                LOG.info("embedding model {}: fused layer normalisations run no faster on this ONNX Runtime{};"
                        + " serving it unfused", name, timing);
                return asShipped;
            }
        }
        LOG.info("embedding model {}: {} layer normalisations fused with their residual adds (probe vectors at cosine"
                + " {} or more of the unfused ones{})", name, fusion.fused(),
                String.format(Locale.ROOT, "%.5f", agreement), timing);
        return new ServedModel(modelId, fusion.model(), fusion.fused(), fused);
    }

    /** Closes the fused session a probe failed on and says so: the model as shipped serves. */
    private static ServedModel probeFailed(OrtSession fused, String name, Exception e, ServedModel asShipped)
            throws OrtException {
        fused.close();
        LOG.warn("embedding model {}: the fused layer normalisations failed on a probe ({}); serving it unfused",
                name, e.toString());
        return asShipped;
    }

    private OrtSession.SessionOptions options() throws OrtException {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        try {
            options.setIntraOpNumThreads(settings.effectiveIntraOpThreads());
            options.setInterOpNumThreads(settings.interOpThreads());
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            // Spinning intra-op threads keep cores busy between calls, taking them from the event loops that
            // share this process; on a contended 2-core machine intra_op 2 fell to a tenth of intra_op 1.
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            return options;
        } catch (OrtException | RuntimeException e) {
            options.close();
            throw e;
        }
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

    /** The bundled model of the settings with the layer-normalisation fusion of {@code fusion}: to compare. */
    static OnnxEmbedder open(EmbedderSettings settings, Fusion fusion) {
        return open(settings, OnnxModelFiles.load(settings), fusion);
    }

    private static OnnxEmbedder open(EmbedderSettings settings, OnnxModelFiles files) {
        return open(settings, files, Fusion.WHEN_FASTER);
    }

    private static OnnxEmbedder open(EmbedderSettings settings, OnnxModelFiles files, Fusion fusion) {
        NativeLibraries.prepare();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread loader = new Thread(null, () -> {
            try {
                result.set(new OnnxEmbedder(settings, files, fusion));
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
        return embed(session, texts);
    }

    private float[][] embed(OrtSession model, List<String> texts) throws OrtException {
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
            try (OrtSession.Result result = model.run(feed, Set.of(output))) {
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

    /** How many layer normalisations this model runs fused with their residual adds (0: as shipped). */
    int fusedLayerNorms() {
        return fusedLayerNorms;
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

    /**
     * Which form of a model this JVM serves, fused or as shipped, decided once a mode and kept softly (the last
     * decision only) so that opening it again (a test's next gateway, a reload) builds one session instead of two and
     * skips the checks: same bytes, same runtime.
     *
     * @param model   the bytes served: the fused rewrite, or the model as shipped
     * @param fused   how many layer normalisations {@code model} runs fused (0: as shipped)
     * @param session the session that decided, which the embedder that decided serves; none in what is kept
     */
    private record ServedModel(String modelId, byte[] model, int fused, OrtSession session) {

        private record Decision(ServedModel served, Fusion mode) {
        }

        private static final AtomicReference<SoftReference<Decision>> LAST =
                new AtomicReference<>(new SoftReference<>(null));

        static Optional<ServedModel> known(String modelId, Fusion mode) {
            Decision last = LAST.get().get();
            return last != null && last.mode == mode && last.served.modelId.equals(modelId)
                    ? Optional.of(last.served) : Optional.empty();
        }

        /** Keeps the model's bytes, not the session, which belongs to the embedder that opened it. */
        static void remember(ServedModel served, Fusion mode) {
            LAST.set(new SoftReference<>(new Decision(
                    new ServedModel(served.modelId, served.model, served.fused, null), mode)));
        }
    }
}
