package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rewrite on small models written here field by field, run on ONNX Runtime before and after: a residual add
 * and its layer normalisation become one node computing the same values; a sum something else reads, a graph
 * output, or a normalisation over another axis stay as they were. (The bundled models: OnnxEmbedderFusionTest.)
 */
class SkipLayerNormFusionTest {

    private static final int SEQ = 3;
    private static final int HIDDEN = 8;

    @BeforeAll
    static void loadRuntime() {
        NativeLibraries.prepare();
    }

    @Test
    void fuse_addThenLayerNorm_oneFusedNodeWithTheSameOutput() throws Exception {
        byte[] model = model(List.of(
                node("Add", List.of("x", "s"), "sum", List.of()),
                node("LayerNormalization", List.of("sum", "gamma", "beta"), "y",
                        List.of(intAttribute("axis", -1), floatAttribute("epsilon", 1e-6f)))), List.of("y"));

        SkipLayerNormFusion.Result result = SkipLayerNormFusion.fuse(model);

        assertThat(result.fused()).isEqualTo(1);
        assertThat(opTypes(result.model())).containsExactly("SkipLayerNormalization");
        assertSameOutput(model, result.model(), "y");
    }

    @Test
    void fuse_sumReadElsewhere_leftAsItWas() throws Exception {
        byte[] model = model(List.of(
                node("Add", List.of("x", "s"), "sum", List.of()),
                node("LayerNormalization", List.of("sum", "gamma", "beta"), "normed", List.of()),
                node("Add", List.of("normed", "sum"), "y", List.of())), List.of("y"));

        SkipLayerNormFusion.Result result = SkipLayerNormFusion.fuse(model);

        assertThat(result.fused()).isZero();
        assertThat(result.model()).isSameAs(model);
    }

    @Test
    void fuse_sumIsAGraphOutput_leftAsItWas() throws Exception {
        byte[] model = model(List.of(
                node("Add", List.of("x", "s"), "sum", List.of()),
                node("LayerNormalization", List.of("sum", "gamma", "beta"), "y", List.of())), List.of("y", "sum"));

        assertThat(SkipLayerNormFusion.fuse(model).fused()).isZero();
    }

    @Test
    void fuse_normalisationOverAnotherAxis_leftAsItWas() throws Exception {
        byte[] model = model(List.of(
                node("Add", List.of("x", "s"), "sum", List.of()),
                node("LayerNormalization", List.of("sum", "gamma", "beta"), "y", List.of(intAttribute("axis", 1)))),
                List.of("y"));

        assertThat(SkipLayerNormFusion.fuse(model).fused()).isZero();
    }

    @Test
    void fuse_twoPairsInSequence_bothFusedInOrder() throws Exception {
        byte[] model = model(List.of(
                node("Add", List.of("x", "s"), "sum1", List.of()),
                node("LayerNormalization", List.of("sum1", "gamma", "beta"), "h", List.of()),
                node("Add", List.of("h", "x"), "sum2", List.of()),
                node("LayerNormalization", List.of("sum2", "gamma", "beta"), "y", List.of())), List.of("y"));

        SkipLayerNormFusion.Result result = SkipLayerNormFusion.fuse(model);

        assertThat(result.fused()).isEqualTo(2);
        assertThat(opTypes(result.model())).containsExactly("SkipLayerNormalization", "SkipLayerNormalization");
        assertSameOutput(model, result.model(), "y");
    }

    @Test
    void fuse_pyTorchsNineNodeLayerNorm_oneFusedNodeWithTheSameOutput() throws Exception {
        // As torch.onnx writes nn.LayerNorm before opset 17, and as the bundled models hold it: with its constants.
        byte[] model = model(nineNodeLayerNorm("y"), List.of("y"));

        SkipLayerNormFusion.Result result = SkipLayerNormFusion.fuse(model);

        assertThat(result.fused()).isEqualTo(1);
        assertThat(opTypes(result.model())).as("the add, the nine nodes and their two constants: one node")
                .containsExactly("SkipLayerNormalization");
        assertSameOutput(model, result.model(), "y");
    }

    @Test
    void fuse_nineNodeFormWhoseMeanIsAlsoAnOutput_leftAsItWas() throws Exception {
        byte[] model = model(nineNodeLayerNorm("y"), List.of("y", "mean"));

        assertThat(SkipLayerNormFusion.fuse(model).fused()).isZero();
    }

    @Test
    void fuse_nineNodeFormSquaringByThree_leftAsItWas() throws Exception {
        List<UnknownFieldSet> nodes = new ArrayList<>(nineNodeLayerNorm("y"));
        nodes.set(0, constant("two", 3f));

        assertThat(SkipLayerNormFusion.fuse(model(nodes, List.of("y"))).fused()).isZero();
    }

    @Test
    void fuse_notAProtobuf_refused() {
        assertThatThrownBy(() -> SkipLayerNormFusion.fuse(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}))
                .isInstanceOf(InvalidProtocolBufferException.class);
    }

    // --- a minimal ONNX model, field by field (onnx.proto's numbers) ---

    /** Add(x, s), then mean, x − mean, ², mean, + ε, √, ÷, × γ, + β, as torch.onnx exports nn.LayerNorm at opset 11. */
    private static List<UnknownFieldSet> nineNodeLayerNorm(String output) {
        return List.of(
                constant("two", 2f),
                constant("eps", 1e-12f),
                node("Add", List.of("x", "s"), "sum", List.of()),
                node("ReduceMean", List.of("sum"), "mean", List.of(intsAttribute("axes", -1))),
                node("Sub", List.of("sum", "mean"), "centred", List.of()),
                node("Pow", List.of("centred", "two"), "squared", List.of()),
                node("ReduceMean", List.of("squared"), "variance", List.of(intsAttribute("axes", -1))),
                node("Add", List.of("variance", "eps"), "varianceEps", List.of()),
                node("Sqrt", List.of("varianceEps"), "std", List.of()),
                node("Div", List.of("centred", "std"), "normed", List.of()),
                node("Mul", List.of("normed", "gamma"), "scaled", List.of()),
                node("Add", List.of("scaled", "beta"), output, List.of()));
    }

    private static UnknownFieldSet constant(String output, float value) {
        UnknownFieldSet scalar = UnknownFieldSet.newBuilder().addField(2, varint(1))
                .addField(9, bytes(List.of(ByteString.copyFrom(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)
                        .putFloat(value).array())))).build();
        UnknownFieldSet attribute = UnknownFieldSet.newBuilder().addField(1, strings(List.of("value")))
                .addField(5, bytes(List.of(scalar.toByteString()))).addField(20, varint(4)).build();
        return node("Constant", List.of(), output, List.of(attribute));
    }

    private static UnknownFieldSet intsAttribute(String name, long value) {
        return UnknownFieldSet.newBuilder().addField(1, strings(List.of(name))).addField(8, varint(value))
                .addField(20, varint(7)).build();
    }

    private static byte[] model(List<UnknownFieldSet> nodes, List<String> outputs) {
        UnknownFieldSet.Builder graph = UnknownFieldSet.newBuilder()
                .addField(1, bytes(nodes.stream().map(UnknownFieldSet::toByteString).toList()))
                .addField(2, strings(List.of("g")));
        Random random = new Random(7);
        List<ByteString> initializers = new ArrayList<>();
        initializers.add(tensor("gamma", random, HIDDEN));
        initializers.add(tensor("beta", random, HIDDEN));
        graph.addField(5, bytes(initializers));
        graph.addField(11, bytes(List.of(valueInfo("x"), valueInfo("s"))));
        graph.addField(12, bytes(outputs.stream().map(SkipLayerNormFusionTest::valueInfo).toList()));
        UnknownFieldSet opset = UnknownFieldSet.newBuilder().addField(1, strings(List.of("")))
                .addField(2, varint(17)).build();
        return UnknownFieldSet.newBuilder().addField(1, varint(8))
                .addField(7, bytes(List.of(graph.build().toByteString())))
                .addField(8, bytes(List.of(opset.toByteString())))
                .build().toByteArray();
    }

    private static UnknownFieldSet node(String opType, List<String> inputs, String output,
                                        List<UnknownFieldSet> attributes) {
        return UnknownFieldSet.newBuilder().addField(1, strings(inputs)).addField(2, strings(List.of(output)))
                .addField(3, strings(List.of(opType + "_" + output))).addField(4, strings(List.of(opType)))
                .addField(5, bytes(attributes.stream().map(UnknownFieldSet::toByteString).toList())).build();
    }

    private static UnknownFieldSet intAttribute(String name, long value) {
        return UnknownFieldSet.newBuilder().addField(1, strings(List.of(name))).addField(3, varint(value))
                .addField(20, varint(2)).build();
    }

    private static UnknownFieldSet floatAttribute(String name, float value) {
        return UnknownFieldSet.newBuilder().addField(1, strings(List.of(name)))
                .addField(2, UnknownFieldSet.Field.newBuilder().addFixed32(Float.floatToRawIntBits(value)).build())
                .addField(20, varint(1)).build();
    }

    private static ByteString valueInfo(String name) {
        UnknownFieldSet.Builder shape = UnknownFieldSet.newBuilder();
        UnknownFieldSet.Field.Builder dims = UnknownFieldSet.Field.newBuilder();
        for (long d : new long[] {1, SEQ, HIDDEN}) {
            dims.addLengthDelimited(UnknownFieldSet.newBuilder().addField(1, varint(d)).build().toByteString());
        }
        shape.addField(1, dims.build());
        UnknownFieldSet tensorType = UnknownFieldSet.newBuilder().addField(1, varint(1))
                .addField(2, bytes(List.of(shape.build().toByteString()))).build();
        UnknownFieldSet type = UnknownFieldSet.newBuilder().addField(1, bytes(List.of(tensorType.toByteString())))
                .build();
        return UnknownFieldSet.newBuilder().addField(1, strings(List.of(name)))
                .addField(2, bytes(List.of(type.toByteString()))).build().toByteString();
    }

    private static ByteString tensor(String name, Random random, int length) {
        ByteBuffer raw = ByteBuffer.allocate(4 * length).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < length; i++) {
            raw.putFloat(0.5f + random.nextFloat());
        }
        return UnknownFieldSet.newBuilder().addField(1, varint(length)).addField(2, varint(1))
                .addField(8, strings(List.of(name))).addField(9, bytes(List.of(ByteString.copyFrom(raw.array()))))
                .build().toByteString();
    }

    private static UnknownFieldSet.Field varint(long value) {
        return UnknownFieldSet.Field.newBuilder().addVarint(value).build();
    }

    private static UnknownFieldSet.Field strings(List<String> values) {
        return bytes(values.stream().map(ByteString::copyFromUtf8).toList());
    }

    private static UnknownFieldSet.Field bytes(List<ByteString> values) {
        UnknownFieldSet.Field.Builder field = UnknownFieldSet.Field.newBuilder();
        values.forEach(field::addLengthDelimited);
        return field.build();
    }

    private static List<String> opTypes(byte[] model) throws InvalidProtocolBufferException {
        UnknownFieldSet graph = UnknownFieldSet.parseFrom(UnknownFieldSet.parseFrom(model).getField(7)
                .getLengthDelimitedList().get(0));
        List<String> types = new ArrayList<>();
        for (ByteString node : graph.getField(1).getLengthDelimitedList()) {
            types.add(UnknownFieldSet.parseFrom(node).getField(4).getLengthDelimitedList().get(0).toStringUtf8());
        }
        return types;
    }

    /** On a thread with ONNX Runtime's stack (creating its environment recurses deep: {@link OnnxEmbedder}). */
    /** Both models, run on ONNX Runtime with the same inputs, give {@code output} the same values to 1e-5. */
    private static void assertSameOutput(byte[] before, byte[] after, String output) throws Exception {
        float[] expected = run(before, output);
        float[] actual = run(after, output);
        for (int i = 0; i < expected.length; i++) {
            assertThat(actual[i]).as("value %d", i).isCloseTo(expected[i], within(1e-5f));
        }
    }

    private static float[] run(byte[] model, String output) throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread thread = new Thread(null, () -> {
            try {
                result.set(runHere(model, output));
            } catch (Exception e) {
                result.set(e);
            }
        }, "ort", OnnxEmbedder.NATIVE_STACK_BYTES);
        thread.start();
        thread.join();
        if (result.get() instanceof Exception e) {
            throw e;
        }
        return (float[]) result.get();
    }

    private static float[] runHere(byte[] model, String output) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Random random = new Random(11);
        float[] x = new float[SEQ * HIDDEN];
        float[] s = new float[SEQ * HIDDEN];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
            s[i] = (float) random.nextGaussian();
        }
        long[] shape = {1, SEQ, HIDDEN};
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
             OrtSession session = env.createSession(model, options);
             OnnxTensor tx = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), shape);
             OnnxTensor ts = OnnxTensor.createTensor(env, FloatBuffer.wrap(s), shape);
             OrtSession.Result result = session.run(Map.of("x", tx, "s", ts))) {
            FloatBuffer values = ((OnnxTensor) result.get(output).orElseThrow()).getFloatBuffer();
            float[] out = new float[values.remaining()];
            values.get(out);
            return out;
        }
    }
}
