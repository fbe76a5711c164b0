import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.cachegate.cache.semantic.NativeLibraries;
import java.io.ByteArrayInputStream;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where one embedding's time goes, by ONNX Runtime operator: one 25-token prompt through a bundled model on one
 * intra-op thread with the gateway's session options and ORT's profiler on; per operator type, the nodes a call and
 * the median time of one node (medians, so that a call the machine's load stretched does not count), and the
 * optimized graph ORT wrote (docs/benchmarks.md, eighth session). A probe, run from source like EmbedLatency.
 *
 * <pre>
 * java -cp cli/target/cachegate.jar benchmarks/probes/EmbedOpProfile.java bge-small-en-v1.5-q 200 /tmp/optimized.onnx
 * java -cp cli/target/cachegate.jar benchmarks/probes/EmbedOpProfile.java bge-small-en-v1.5-q+fused 200   # as served
 * </pre>
 */
public class EmbedOpProfile {

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(null, () -> { try { run(args); } catch (Exception e) { throw new RuntimeException(e); } },
                "bench", 32L << 20);  // ORT's environment needs a deep native stack (OnnxEmbedder.NATIVE_STACK_BYTES)
        t.start();
        t.join();
    }

    static byte[] resource(String name) throws Exception {
        try (var in = EmbedOpProfile.class.getClassLoader().getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    /**
     * The model's bytes: a bundled model by name, {@code NAME+fused} with SkipLayerNormFusion's rewrite (as
     * OnnxEmbedder serves it where that runs faster), or {@code NAME:/path/model.onnx} a rewritten graph of that model
     * from a file (NAME's tokenizer).
     */
    static byte[] modelBytes(String model) throws Exception {
        if (model.contains(":")) {
            return Files.readAllBytes(Path.of(model.substring(model.indexOf(':') + 1)));
        }
        if (!model.endsWith("+fused")) {
            return resource(model + ".onnx");
        }
        var fuse = Class.forName("io.cachegate.cache.semantic.SkipLayerNormFusion").getDeclaredMethod("fuse", byte[].class);
        fuse.setAccessible(true);
        Object result = fuse.invoke(null, (Object) resource(model.replace("+fused", "") + ".onnx"));
        var bytes = result.getClass().getDeclaredMethod("model");
        bytes.setAccessible(true);
        return (byte[]) bytes.invoke(result);
    }

    static void run(String[] args) throws Exception {
        String model = args[0];
        int calls = Integer.parseInt(args[1]);
        NativeLibraries.prepare();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        String prompt = "How do I reset the password of my online banking account if I no longer have access to my old mobile phone number";
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(
                new ByteArrayInputStream(resource(model.replaceFirst("[+:].*", "") + "-tokenizer.json")), Map.of("truncation", "true", "maxLength", "512", "padding", "true"));
        Encoding enc = tokenizer.batchEncode(List.of(prompt))[0];
        long[] ids = enc.getIds(), mask = enc.getAttentionMask(), types = enc.getTypeIds();
        long[] shape = {1, ids.length};
        Path profile = Files.createTempDirectory("ort-profile").resolve("profile");
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setIntraOpNumThreads(1);
        o.setInterOpNumThreads(1);
        o.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        o.addConfigEntry("session.intra_op.allow_spinning", "0");
        if (args.length > 2) {
            o.setOptimizedModelFilePath(args[2]);
        }
        o.enableProfiling(profile.toString());
        OrtSession s = env.createSession(modelBytes(model), o);
        for (int i = 0; i < calls; i++) {
            Map<String, OnnxTensor> feed = new HashMap<>();
            feed.put("input_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape));
            feed.put("attention_mask", OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape));
            if (s.getInputNames().contains("token_type_ids")) {
                feed.put("token_type_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(types), shape));
            }
            try (OrtSession.Result r = s.run(feed)) {
                r.get(0);
            }
            feed.values().forEach(OnnxTensor::close);
        }
        String json = Files.readString(Path.of(s.endProfiling()));
        // ORT writes one event an object: {"cat" : "Node", ..., "dur" :86, ..., "name" :"…_kernel_time","args" : {… "op_name" : "X" …
        Matcher m = Pattern.compile("\"cat\" : \"Node\"[^\\n]*?\"dur\" :(\\d+)[^\\n]*?\"name\" :\"[^\"]*_kernel_time\"[^\\n]*?\"op_name\" : \"([^\"]+)\"")
                .matcher(json);
        Map<String, List<Integer>> byOp = new HashMap<>();
        while (m.find()) {
            byOp.computeIfAbsent(m.group(2), x -> new ArrayList<>()).add(Integer.parseInt(m.group(1)));
        }
        int runs = calls;
        Map<String, Double> msPerCall = new HashMap<>();
        for (var e : byOp.entrySet()) {
            List<Integer> d = e.getValue();
            Collections.sort(d);
            msPerCall.put(e.getKey(), d.get(d.size() / 2) * (double) d.size() / runs / 1000);
        }
        double total = msPerCall.values().stream().mapToDouble(Double::doubleValue).sum();
        System.out.printf("%s, %d tokens, %d calls; per operator: nodes a call, median µs a node, ms a call, share%n", model, ids.length, calls);
        msPerCall.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).forEach(e -> {
            List<Integer> d = byOp.get(e.getKey());
            System.out.printf("  %-24s %4d %8.1f %7.3f %5.1f%%%n", e.getKey(), d.size() / runs, (double) d.get(d.size() / 2), e.getValue(), 100 * e.getValue() / total);
        });
        System.out.printf("  sum of medians %.3f ms a call%n", total);
    }
}
