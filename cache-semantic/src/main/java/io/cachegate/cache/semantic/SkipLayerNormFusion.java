package io.cachegate.cache.semantic;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Rewrites each residual {@code Add} that feeds a layer normalisation of an ONNX model into ONNX Runtime's fused
 * {@code SkipLayerNormalization} (domain {@code com.microsoft}): the same arithmetic in one kernel.
 *
 * <p>Why: ONNX Runtime 1.29's CPU kernel for {@code LayerNormalization} takes ~45 µs on 25 × 384 values, its
 * {@code SkipLayerNormalization} ~8 µs with the add (docs/benchmarks.md), and its own optimiser does not make this
 * fusion on bge-small's graph. A normalisation is found in either form an exporter writes: one
 * {@code LayerNormalization} node (opset 17 on), or PyTorch's nine-node spelling of it at older opsets (the bundled
 * models': {@code ReduceMean}, {@code Sub}, {@code Pow 2}, {@code ReduceMean}, {@code Add ε}, {@code Sqrt}, {@code Div},
 * {@code Mul γ}, {@code Add β}), over the last axis, with one-dimensional scale and bias. A pair is fused only where
 * nothing else reads the sum or the normalisation's intermediate values; anything else is left as it was.
 *
 * <p>The protobuf is read field by field ({@link UnknownFieldSet}, no generated ONNX classes): only the graph's nodes
 * change, every other field (the weights included) passes through as it was.
 */
final class SkipLayerNormFusion {

    /** The model with its pairs fused, and how many there were (0: {@code model} is the input unchanged). */
    record Result(byte[] model, int fused) {
    }

    private static final String MICROSOFT = "com.microsoft";

    // ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto and OperatorSetIdProto field
    // numbers (onnx.proto).
    private static final int MODEL_GRAPH = 7;
    private static final int MODEL_OPSET_IMPORT = 8;
    private static final int OPSET_DOMAIN = 1;
    private static final int OPSET_VERSION = 2;
    private static final int GRAPH_NODE = 1;
    private static final int GRAPH_INITIALIZER = 5;
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
    private static final int ATTRIBUTE_T = 5;
    private static final int ATTRIBUTE_INTS = 8;
    private static final int ATTRIBUTE_TYPE = 20;
    private static final int ATTRIBUTE_TYPE_FLOAT = 1;
    private static final int TENSOR_DIMS = 1;
    private static final int TENSOR_DATA_TYPE = 2;
    private static final int TENSOR_FLOAT_DATA = 4;
    private static final int TENSOR_NAME = 8;
    private static final int TENSOR_RAW_DATA = 9;
    private static final int TENSOR_TYPE_FLOAT = 1;
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
        UnknownFieldSet graphFields = UnknownFieldSet.parseFrom(graphs.get(0));
        Graph graph = Graph.parse(graphFields);

        Set<Integer> removed = new HashSet<>();
        Map<Integer, ByteString> replacements = new HashMap<>();
        for (int i = 0; i < graph.nodes.size(); i++) {
            int at = i;
            Optional<Match> match = graph.layerNormalization(at).or(() -> graph.decomposedNormalization(at));
            if (match.isEmpty() || match.get().nodes.stream().anyMatch(removed::contains)) {
                continue;
            }
            Match m = match.get();
            Optional<Node> add = graph.residualAdd(m.input, m.nodes);
            if (add.isEmpty() || removed.contains(add.get().index)) {
                continue;
            }
            removed.addAll(m.nodes);
            removed.add(add.get().index);
            // In the last node's place: after the add's inputs are made, before anything reads the result.
            int last = m.nodes.stream().mapToInt(Integer::intValue).max().orElseThrow();
            replacements.put(last, skipLayerNorm(graph.nodes.get(i).name, add.get().inputs.get(0),
                    add.get().inputs.get(1), m.gamma, m.beta, m.output, m.epsilon));
        }
        if (replacements.isEmpty()) {
            return new Result(model, 0);
        }
        List<ByteString> nodes = new ArrayList<>(graph.nodes.size());
        for (int i = 0; i < graph.nodes.size(); i++) {
            if (replacements.containsKey(i)) {
                nodes.add(replacements.get(i));
            } else if (!removed.contains(i) && !graph.constantOnlyFor(i, removed)) {
                nodes.add(graph.nodes.get(i).bytes);
            }
        }
        UnknownFieldSet newGraph = UnknownFieldSet.newBuilder(graphFields).addField(GRAPH_NODE, lengthDelimited(nodes))
                .build();
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
        return new Result(newModel.build().toByteArray(), replacements.size());
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

    /** A layer normalisation found: its nodes (by index), what it normalises, its scale, bias, epsilon and result. */
    private record Match(List<Integer> nodes, String input, String gamma, String beta, float epsilon, String output) {
    }

    /** The graph's nodes with who makes and who reads each value, its initializers' shapes and its scalar constants. */
    private static final class Graph {

        final List<Node> nodes = new ArrayList<>();
        final Map<String, Integer> producer = new HashMap<>();
        final Map<String, List<Integer>> readers = new HashMap<>();
        final Set<String> graphOutputs = new HashSet<>();
        /** Initializers by name: their dimensions. */
        final Map<String, List<Long>> initializerDims = new HashMap<>();
        /** One-value float tensors by name, from initializers and {@code Constant} nodes. */
        final Map<String, Float> scalars = new HashMap<>();

        static Graph parse(UnknownFieldSet graph) throws InvalidProtocolBufferException {
            Graph g = new Graph();
            List<ByteString> nodeBytes = graph.getField(GRAPH_NODE).getLengthDelimitedList();
            for (int i = 0; i < nodeBytes.size(); i++) {
                Node node = Node.parse(i, nodeBytes.get(i));
                g.nodes.add(node);
                node.outputs.forEach(o -> g.producer.put(o, node.index));
                node.inputs.forEach(in -> g.readers.computeIfAbsent(in, k -> new ArrayList<>()).add(node.index));
                if (node.is("Constant") && node.outputs.size() == 1 && node.attributes.containsKey("value")) {
                    List<ByteString> tensors = node.attributes.get("value").getField(ATTRIBUTE_T).getLengthDelimitedList();
                    if (tensors.size() == 1) {
                        scalar(UnknownFieldSet.parseFrom(tensors.get(0)))
                                .ifPresent(v -> g.scalars.put(node.outputs.get(0), v));
                    }
                }
            }
            for (ByteString output : graph.getField(GRAPH_OUTPUT).getLengthDelimitedList()) {
                g.graphOutputs.add(string(UnknownFieldSet.parseFrom(output), VALUE_INFO_NAME));
            }
            for (ByteString initializer : graph.getField(GRAPH_INITIALIZER).getLengthDelimitedList()) {
                UnknownFieldSet tensor = UnknownFieldSet.parseFrom(initializer);
                String name = string(tensor, TENSOR_NAME);
                g.initializerDims.put(name, tensor.getField(TENSOR_DIMS).getVarintList());
                scalar(tensor).ifPresent(v -> g.scalars.put(name, v));
            }
            return g;
        }

        /** The value of a float tensor of one element. */
        private static Optional<Float> scalar(UnknownFieldSet tensor) {
            if (!tensor.getField(TENSOR_DATA_TYPE).getVarintList().equals(List.of((long) TENSOR_TYPE_FLOAT))
                    || tensor.getField(TENSOR_DIMS).getVarintList().stream().anyMatch(d -> d != 1)) {
                return Optional.empty();
            }
            List<ByteString> raw = tensor.getField(TENSOR_RAW_DATA).getLengthDelimitedList();
            if (raw.size() == 1 && raw.get(0).size() == 4) {
                return Optional.of(raw.get(0).asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).getFloat());
            }
            List<Integer> unpacked = tensor.getField(TENSOR_FLOAT_DATA).getFixed32List();
            if (raw.isEmpty() && unpacked.size() == 1) {
                return Optional.of(Float.intBitsToFloat(unpacked.get(0)));
            }
            List<ByteString> packed = tensor.getField(TENSOR_FLOAT_DATA).getLengthDelimitedList();
            if (raw.isEmpty() && packed.size() == 1 && packed.get(0).size() == 4) {
                return Optional.of(packed.get(0).asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).getFloat());
            }
            return Optional.empty();
        }

        /** Node {@code i} as one {@code LayerNormalization} that {@code SkipLayerNormalization} computes alike. */
        Optional<Match> layerNormalization(int i) {
            Node norm = nodes.get(i);
            if (!norm.is("LayerNormalization") || norm.inputs.size() != 3 || norm.outputs.size() != 1
                    || !isVector(norm.inputs.get(1)) || !isVector(norm.inputs.get(2))
                    || !norm.intAttribute("axis").orElse(-1L).equals(-1L)
                    || !norm.intAttribute("stash_type").orElse(1L).equals(1L)) {
                return Optional.empty();
            }
            Optional<Float> epsilon = norm.attributes.containsKey("epsilon") ? norm.floatAttribute("epsilon")
                    : Optional.of(DEFAULT_EPSILON);
            return epsilon.map(e -> new Match(List.of(i), norm.inputs.get(0), norm.inputs.get(1), norm.inputs.get(2),
                    e, norm.outputs.get(0)));
        }

        /**
         * Node {@code i} as the first {@code ReduceMean} of PyTorch's nine-node layer normalisation over the last
         * axis: mean, x − mean, its square, their mean, + ε, √, (x − mean) / √, × γ, + β.
         */
        Optional<Match> decomposedNormalization(int i) {
            Node mean = nodes.get(i);
            if (!mean.isLastAxisMean()) {
                return Optional.empty();
            }
            String x = mean.inputs.get(0);
            Optional<Node> centred = soleReader(mean.output(), "Sub")
                    .filter(n -> n.inputs.equals(List.of(x, mean.output())));
            if (centred.isEmpty() || readersOf(x) != 2) {
                return Optional.empty();
            }
            String d = centred.get().output();
            List<Integer> dReaders = readers.getOrDefault(d, List.of());
            if (dReaders.size() != 2 || graphOutputs.contains(d)) {
                return Optional.empty();
            }
            Optional<Node> square = dReaders.stream().map(nodes::get).filter(n -> n.is("Pow")).findFirst()
                    .filter(n -> n.inputs.size() == 2 && n.inputs.get(0).equals(d)
                            && Float.valueOf(2f).equals(scalars.get(n.inputs.get(1))));
            Optional<Node> variance = square.flatMap(n -> soleReader(n.output(), "ReduceMean"))
                    .filter(Node::isLastAxisMean);
            Optional<Node> plusEpsilon = variance.flatMap(n -> soleReader(n.output(), "Add"));
            Optional<Float> epsilon = plusEpsilon.flatMap(n -> other(n, variance.get().output()).map(scalars::get));
            Optional<Node> root = plusEpsilon.flatMap(n -> soleReader(n.output(), "Sqrt"));
            Optional<Node> divided = root.flatMap(n -> soleReader(n.output(), "Div"))
                    .filter(n -> n.inputs.equals(List.of(d, root.get().output())) && dReaders.contains(n.index));
            Optional<Node> scaled = divided.flatMap(n -> soleReader(n.output(), "Mul"));
            Optional<String> gamma = scaled.flatMap(n -> other(n, divided.get().output())).filter(this::isVector);
            Optional<Node> shifted = scaled.flatMap(n -> soleReader(n.output(), "Add"));
            Optional<String> beta = shifted.flatMap(n -> other(n, scaled.get().output())).filter(this::isVector);
            if (beta.isEmpty() || gamma.isEmpty() || epsilon.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Match(List.of(i, centred.get().index, square.get().index, variance.get().index,
                    plusEpsilon.get().index, root.get().index, divided.get().index, scaled.get().index,
                    shifted.get().index), x, gamma.get(), beta.get(), epsilon.get(), shifted.get().output()));
        }

        /** The {@code Add} of two values making {@code sum}, when only {@code norm}'s nodes read that sum. */
        Optional<Node> residualAdd(String sum, List<Integer> norm) {
            Integer made = producer.get(sum);
            if (made == null || graphOutputs.contains(sum)
                    || !norm.containsAll(readers.getOrDefault(sum, List.of()))) {
                return Optional.empty();
            }
            Node add = nodes.get(made);
            return add.is("Add") && add.inputs.size() == 2 && add.outputs.size() == 1
                    && !add.inputs.get(0).isEmpty() && !add.inputs.get(1).isEmpty() ? Optional.of(add) : Optional.empty();
        }

        /** Whether node {@code i} is a {@code Constant} read only by the nodes removed. */
        boolean constantOnlyFor(int i, Set<Integer> removed) {
            Node node = nodes.get(i);
            return node.is("Constant") && node.outputs.stream().noneMatch(graphOutputs::contains)
                    && node.outputs.stream().allMatch(o -> readers.containsKey(o) && removed.containsAll(readers.get(o)));
        }

        private Optional<Node> soleReader(String value, String opType) {
            List<Integer> r = readers.getOrDefault(value, List.of());
            if (r.size() != 1 || graphOutputs.contains(value)) {
                return Optional.empty();
            }
            Node node = nodes.get(r.get(0));
            return node.is(opType) && node.outputs.size() == 1 ? Optional.of(node) : Optional.empty();
        }

        private int readersOf(String value) {
            return readers.getOrDefault(value, List.of()).size();
        }

        /** A binary node's other input than {@code one}. */
        private static Optional<String> other(Node node, String one) {
            if (node.inputs.size() != 2) {
                return Optional.empty();
            }
            return node.inputs.get(0).equals(one) ? Optional.of(node.inputs.get(1))
                    : node.inputs.get(1).equals(one) ? Optional.of(node.inputs.get(0)) : Optional.empty();
        }

        /** An initializer of one dimension (a scale or a bias over the hidden size). */
        private boolean isVector(String name) {
            List<Long> dims = initializerDims.get(name);
            return dims != null && dims.size() == 1;
        }
    }

    /** One NodeProto: the fields the fusion reads, and its bytes to pass through unchanged. */
    private record Node(int index, ByteString bytes, String name, String opType, String domain, List<String> inputs,
                        List<String> outputs, Map<String, UnknownFieldSet> attributes) {

        static Node parse(int index, ByteString bytes) throws InvalidProtocolBufferException {
            UnknownFieldSet node = UnknownFieldSet.parseFrom(bytes);
            Map<String, UnknownFieldSet> attributes = new HashMap<>();
            for (ByteString attribute : node.getField(NODE_ATTRIBUTE).getLengthDelimitedList()) {
                UnknownFieldSet fields = UnknownFieldSet.parseFrom(attribute);
                attributes.put(string(fields, ATTRIBUTE_NAME), fields);
            }
            return new Node(index, bytes, string(node, NODE_NAME), string(node, NODE_OP_TYPE),
                    string(node, NODE_DOMAIN),
                    node.getField(NODE_INPUT).getLengthDelimitedList().stream().map(ByteString::toStringUtf8).toList(),
                    node.getField(NODE_OUTPUT).getLengthDelimitedList().stream().map(ByteString::toStringUtf8).toList(),
                    attributes);
        }

        /** Of this operator in the default domain. */
        boolean is(String type) {
            return opType.equals(type) && (domain.isEmpty() || domain.equals("ai.onnx"));
        }

        String output() {
            return outputs.get(0);
        }

        /** A {@code ReduceMean} over the last axis only, keeping it (opset ≤ 17: axes as an attribute). */
        boolean isLastAxisMean() {
            if (!is("ReduceMean") || inputs.size() != 1 || outputs.size() != 1
                    || !intAttribute("keepdims").orElse(1L).equals(1L)) {
                return false;
            }
            UnknownFieldSet axes = attributes.get("axes");
            if (axes == null) {
                return false;
            }
            List<Long> values = new ArrayList<>(axes.getField(ATTRIBUTE_INTS).getVarintList());
            for (ByteString packed : axes.getField(ATTRIBUTE_INTS).getLengthDelimitedList()) {
                ByteBuffer buffer = packed.asReadOnlyByteBuffer();
                while (buffer.hasRemaining()) {
                    values.add(readVarint(buffer));
                }
            }
            return values.equals(List.of(-1L));
        }

        Optional<Long> intAttribute(String attribute) {
            UnknownFieldSet fields = attributes.get(attribute);
            if (fields == null) {
                return Optional.empty();
            }
            List<Long> values = fields.getField(ATTRIBUTE_I).getVarintList();
            return values.size() == 1 ? Optional.of(values.get(0)) : Optional.of(Long.MIN_VALUE);
        }

        Optional<Float> floatAttribute(String attribute) {
            List<Integer> bits = attributes.get(attribute).getField(ATTRIBUTE_F).getFixed32List();
            return bits.size() == 1 ? Optional.of(Float.intBitsToFloat(bits.get(0))) : Optional.empty();
        }

        private static long readVarint(ByteBuffer buffer) {
            long value = 0;
            for (int shift = 0; shift < 64 && buffer.hasRemaining(); shift += 7) {
                byte b = buffer.get();
                value |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
            }
            return value;
        }
    }
}
