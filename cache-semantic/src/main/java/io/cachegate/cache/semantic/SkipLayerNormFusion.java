package io.cachegate.cache.semantic;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rewrites each residual {@code Add} that feeds a {@code LayerNormalization} of an ONNX model into ONNX Runtime's
 * fused {@code SkipLayerNormalization} (domain {@code com.microsoft}): the same arithmetic in one kernel.
 *
 * <p>Why: ONNX Runtime 1.29's CPU kernel for {@code LayerNormalization} takes ~45 µs on 25 × 384 values, its
 * {@code SkipLayerNormalization} ~8 µs with the add (docs/benchmarks.md), and its own optimiser does not make this
 * fusion on bge-small's graph. The model given is the one ONNX Runtime has itself optimised (its layer
 * normalisations fused from the exported {@code ReduceMean}, {@code Sub}, {@code Pow} ... nodes). The protobuf is
 * read field by field ({@link UnknownFieldSet}, no generated ONNX classes): only the graph's nodes change, every other
 * field (weights included) passes through as it was. A pair is fused only where nothing else reads the sum and the
 * normalisation is over the last axis in float with one output; anything else is left as it was.
 */
final class SkipLayerNormFusion {

    /** The model with its pairs fused, and how many there were (0: {@code model} is the input unchanged). */
    record Result(byte[] model, int fused) {
    }

    private static final String MICROSOFT = "com.microsoft";

    // ModelProto, GraphProto, NodeProto, AttributeProto, ValueInfoProto and OperatorSetIdProto field numbers (onnx.proto).
    private static final int MODEL_GRAPH = 7;
    private static final int MODEL_OPSET_IMPORT = 8;
    private static final int OPSET_DOMAIN = 1;
    private static final int OPSET_VERSION = 2;
    private static final int GRAPH_NODE = 1;
    private static final int GRAPH_OUTPUT = 12;
    private static final int VALUE_INFO_NAME = 1;
    private static final int NODE_INPUT = 1;
    private static final int NODE_OUTPUT = 2;
    private static final int NODE_NAME = 3;
    private static final int NODE_OP_TYPE = 4;
    private static final int NODE_ATTRIBUTE = 5;
    private static final int NODE_DOMAIN = 7;
    private static final int ATTRIBUTE_NAME = 1;
    private static final int ATTRIBUTE_F = 2;
    private static final int ATTRIBUTE_I = 3;
    private static final int ATTRIBUTE_TYPE = 20;
    private static final int ATTRIBUTE_TYPE_FLOAT = 1;
    /** LayerNormalization's default epsilon (ONNX opset 17). */
    private static final float DEFAULT_EPSILON = 1e-5f;

    private SkipLayerNormFusion() {
    }

    /** @throws InvalidProtocolBufferException when {@code model} is not a protobuf message */
    static Result fuse(byte[] model) throws InvalidProtocolBufferException {
        UnknownFieldSet modelFields = UnknownFieldSet.parseFrom(model);
        List<ByteString> graphs = modelFields.getField(MODEL_GRAPH).getLengthDelimitedList();
        if (graphs.size() != 1) {
            return new Result(model, 0);
        }
        UnknownFieldSet graph = UnknownFieldSet.parseFrom(graphs.get(0));
        List<Node> nodes = new ArrayList<>();
        for (ByteString node : graph.getField(GRAPH_NODE).getLengthDelimitedList()) {
            nodes.add(Node.parse(node));
        }
        Set<String> graphOutputs = new HashSet<>();
        for (ByteString output : graph.getField(GRAPH_OUTPUT).getLengthDelimitedList()) {
            graphOutputs.add(string(UnknownFieldSet.parseFrom(output), VALUE_INFO_NAME));
        }
        Map<String, Integer> producer = new HashMap<>();
        Map<String, Integer> readers = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            for (String output : nodes.get(i).outputs) {
                producer.put(output, i);
            }
            for (String input : nodes.get(i).inputs) {
                readers.merge(input, 1, Integer::sum);
            }
        }

        List<ByteString> rewritten = new ArrayList<>(nodes.size());
        Set<Integer> absorbed = new HashSet<>();
        ByteString[] replacement = new ByteString[nodes.size()];
        int fused = 0;
        for (int i = 0; i < nodes.size(); i++) {
            Node norm = nodes.get(i);
            Float epsilon = norm.fusableNormEpsilon();
            if (epsilon == null) {
                continue;
            }
            Integer addIndex = producer.get(norm.inputs.get(0));
            if (addIndex == null || absorbed.contains(addIndex)) {
                continue;
            }
            Node add = nodes.get(addIndex);
            String sum = norm.inputs.get(0);
            if (!add.isPlainAdd() || readers.getOrDefault(sum, 0) != 1 || graphOutputs.contains(sum)) {
                continue;
            }
            absorbed.add(addIndex);
            replacement[i] = skipLayerNorm(norm.name, add.inputs.get(0), add.inputs.get(1), norm.inputs.get(1),
                    norm.inputs.get(2), norm.outputs.get(0), epsilon);
            fused++;
        }
        if (fused == 0) {
            return new Result(model, 0);
        }
        // The fused node takes the normalisation's place: after the add's inputs, before the normalisation's readers.
        for (int i = 0; i < nodes.size(); i++) {
            if (!absorbed.contains(i)) {
                rewritten.add(replacement[i] != null ? replacement[i] : nodes.get(i).bytes);
            }
        }
        UnknownFieldSet newGraph = UnknownFieldSet.newBuilder(graph)
                .addField(GRAPH_NODE, lengthDelimited(rewritten)).build();
        UnknownFieldSet.Builder newModel = UnknownFieldSet.newBuilder(modelFields)
                .addField(MODEL_GRAPH, lengthDelimited(List.of(newGraph.toByteString())));
        if (!importsMicrosoftDomain(modelFields)) {
            List<ByteString> imports = new ArrayList<>(modelFields.getField(MODEL_OPSET_IMPORT).getLengthDelimitedList());
            imports.add(UnknownFieldSet.newBuilder()
                    .addField(OPSET_DOMAIN, lengthDelimited(List.of(ByteString.copyFromUtf8(MICROSOFT))))
                    .addField(OPSET_VERSION, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
                    .build().toByteString());
            newModel.addField(MODEL_OPSET_IMPORT, lengthDelimited(imports));
        }
        return new Result(newModel.build().toByteArray(), fused);
    }

    private static boolean importsMicrosoftDomain(UnknownFieldSet model) throws InvalidProtocolBufferException {
        for (ByteString opset : model.getField(MODEL_OPSET_IMPORT).getLengthDelimitedList()) {
            if (MICROSOFT.equals(string(UnknownFieldSet.parseFrom(opset), OPSET_DOMAIN))) {
                return true;
            }
        }
        return false;
    }

    private static ByteString skipLayerNorm(String name, String input, String skip, String gamma, String beta,
                                            String output, float epsilon) {
        UnknownFieldSet attribute = UnknownFieldSet.newBuilder()
                .addField(ATTRIBUTE_NAME, lengthDelimited(List.of(ByteString.copyFromUtf8("epsilon"))))
                .addField(ATTRIBUTE_F, UnknownFieldSet.Field.newBuilder()
                        .addFixed32(Float.floatToRawIntBits(epsilon)).build())
                .addField(ATTRIBUTE_TYPE, UnknownFieldSet.Field.newBuilder().addVarint(ATTRIBUTE_TYPE_FLOAT).build())
                .build();
        return UnknownFieldSet.newBuilder()
                .addField(NODE_INPUT, strings(List.of(input, skip, gamma, beta)))
                .addField(NODE_OUTPUT, strings(List.of(output)))
                .addField(NODE_NAME, strings(List.of(name + "/SkipLayerNormFusion")))
                .addField(NODE_OP_TYPE, strings(List.of("SkipLayerNormalization")))
                .addField(NODE_ATTRIBUTE, lengthDelimited(List.of(attribute.toByteString())))
                .addField(NODE_DOMAIN, strings(List.of(MICROSOFT)))
                .build().toByteString();
    }

    private static UnknownFieldSet.Field strings(List<String> values) {
        UnknownFieldSet.Field.Builder field = UnknownFieldSet.Field.newBuilder();
        values.forEach(v -> field.addLengthDelimited(ByteString.copyFromUtf8(v)));
        return field.build();
    }

    private static UnknownFieldSet.Field lengthDelimited(List<ByteString> values) {
        UnknownFieldSet.Field.Builder field = UnknownFieldSet.Field.newBuilder();
        values.forEach(field::addLengthDelimited);
        return field.build();
    }

    private static String string(UnknownFieldSet message, int field) {
        List<ByteString> values = message.getField(field).getLengthDelimitedList();
        return values.isEmpty() ? "" : values.get(values.size() - 1).toStringUtf8();
    }

    /** One NodeProto: the fields the fusion reads, and its bytes to pass through unchanged. */
    private record Node(ByteString bytes, String name, String opType, String domain, List<String> inputs,
                        List<String> outputs, Map<String, UnknownFieldSet> attributes) {

        static Node parse(ByteString bytes) throws InvalidProtocolBufferException {
            UnknownFieldSet node = UnknownFieldSet.parseFrom(bytes);
            Map<String, UnknownFieldSet> attributes = new HashMap<>();
            for (ByteString attribute : node.getField(NODE_ATTRIBUTE).getLengthDelimitedList()) {
                UnknownFieldSet fields = UnknownFieldSet.parseFrom(attribute);
                attributes.put(string(fields, ATTRIBUTE_NAME), fields);
            }
            return new Node(bytes, string(node, NODE_NAME), string(node, NODE_OP_TYPE), string(node, NODE_DOMAIN),
                    node.getField(NODE_INPUT).getLengthDelimitedList().stream().map(ByteString::toStringUtf8).toList(),
                    node.getField(NODE_OUTPUT).getLengthDelimitedList().stream().map(ByteString::toStringUtf8).toList(),
                    attributes);
        }

        /** {@code Add} of two tensors in the default domain, one output. */
        boolean isPlainAdd() {
            return opType.equals("Add") && isDefaultDomain() && inputs.size() == 2 && outputs.size() == 1
                    && !inputs.get(0).isEmpty() && !inputs.get(1).isEmpty();
        }

        /**
         * The epsilon of a {@code LayerNormalization} that {@code SkipLayerNormalization} computes alike (over the last
         * axis, in float, with scale and bias, one output); null for any other node.
         */
        Float fusableNormEpsilon() {
            if (!opType.equals("LayerNormalization") || !isDefaultDomain() || inputs.size() != 3
                    || inputs.stream().anyMatch(String::isEmpty) || outputs.size() != 1) {
                return null;
            }
            UnknownFieldSet axis = attributes.get("axis");
            if (axis != null && !axis.getField(ATTRIBUTE_I).getVarintList().equals(List.of(-1L))) {
                return null;
            }
            UnknownFieldSet stash = attributes.get("stash_type");
            if (stash != null && !stash.getField(ATTRIBUTE_I).getVarintList().equals(List.of(1L))) {
                return null;
            }
            UnknownFieldSet epsilon = attributes.get("epsilon");
            if (epsilon == null) {
                return DEFAULT_EPSILON;
            }
            List<Integer> bits = epsilon.getField(ATTRIBUTE_F).getFixed32List();
            return bits.size() == 1 ? Float.intBitsToFloat(bits.get(0)) : null;
        }

        private boolean isDefaultDomain() {
            return domain.isEmpty() || domain.equals("ai.onnx");
        }
    }
}
