package io.cachegate.kv;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ArrayValue;
import org.msgpack.value.Value;

/**
 * Reads a KV-event batch from its msgpack payload. vLLM's encoding has changed between releases, so every form it
 * has used is accepted: the batch as an array {@code [ts, events, dp_rank]} or a map; each event as a tagged map
 * ({@code {"type": "BlockStored", ...}}, current vLLM) or a tagged array ({@code ["BlockStored", hashes, parent,
 * token_ids, block_size, ...]}, older vLLM and SGLang); block hashes as integers (up to 64 bits, unsigned) or bytes
 * (the low 8 bytes of the digest, as {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES} would give). Unknown event types are
 * skipped; a malformed payload throws {@link IllegalArgumentException}.
 */
public final class KvEventDecoder {

    private KvEventDecoder() {
    }

    public static KvEvent.Batch decode(byte[] payload) {
        Value root;
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
            root = unpacker.unpackValue();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a msgpack KV-event batch: " + e.getMessage(), e);
        }
        Value ts;
        Value events;
        if (root.isArrayValue()) {
            ArrayValue a = root.asArrayValue();
            require(a.size() >= 2, "a batch array has ts and events");
            ts = a.get(0);
            events = a.get(1);
        } else if (root.isMapValue()) {
            Map<Value, Value> m = root.asMapValue().map();
            ts = field(m, "ts");
            events = field(m, "events");
        } else {
            throw new IllegalArgumentException("a batch is an array or a map, not " + root.getValueType());
        }
        require(ts != null && ts.isNumberValue(), "a batch's ts is a number");
        require(events != null && events.isArrayValue(), "a batch's events are an array");
        List<KvEvent> out = new ArrayList<>(events.asArrayValue().size());
        for (Value e : events.asArrayValue()) {
            KvEvent event = event(e);
            if (event != null) {
                out.add(event);
            }
        }
        double seconds = ts.isFloatValue() ? ts.asFloatValue().toDouble() : ts.asIntegerValue().toLong();
        return new KvEvent.Batch(seconds, out);
    }

    private static KvEvent event(Value e) {
        if (e.isMapValue()) {
            Map<Value, Value> m = e.asMapValue().map();
            Value type = field(m, "type");
            require(type != null && type.isStringValue(), "a tagged event map has a string type");
            return switch (type.asStringValue().asString()) {
                case "BlockStored" -> stored(field(m, "block_hashes"), field(m, "parent_block_hash"),
                        field(m, "token_ids"), field(m, "block_size"), field(m, "medium"));
                case "BlockRemoved" -> removed(field(m, "block_hashes"), field(m, "medium"));
                case "AllBlocksCleared" -> new KvEvent.AllBlocksCleared();
                default -> null;
            };
        }
        require(e.isArrayValue() && e.asArrayValue().size() >= 1, "an event is a tagged map or a tagged array");
        ArrayValue a = e.asArrayValue();
        require(a.get(0).isStringValue(), "a tagged event array starts with its type");
        return switch (a.get(0).asStringValue().asString()) {
            case "BlockStored" -> {
                require(a.size() >= 5, "BlockStored has hashes, parent, token ids and block size");
                yield stored(a.get(1), a.get(2), a.get(3), a.get(4), a.size() > 6 ? a.get(6) : null);
            }
            case "BlockRemoved" -> {
                require(a.size() >= 2, "BlockRemoved has hashes");
                yield removed(a.get(1), a.size() > 2 ? a.get(2) : null);
            }
            case "AllBlocksCleared" -> new KvEvent.AllBlocksCleared();
            default -> null;
        };
    }

    private static KvEvent.BlockStored stored(Value hashes, Value parent, Value tokens, Value blockSize,
                                              Value medium) {
        long[] h = hashes(hashes);
        require(tokens != null && tokens.isArrayValue(), "BlockStored has token_ids");
        require(blockSize != null && blockSize.isIntegerValue(), "BlockStored has an integer block_size");
        int size = blockSize.asIntegerValue().toInt();
        ArrayValue t = tokens.asArrayValue();
        require(size > 0 && t.size() == (long) h.length * size,
                "BlockStored's token_ids are its blocks x block_size (" + h.length + " x " + size + "), not "
                        + t.size());
        int[] ids = new int[t.size()];
        for (int i = 0; i < ids.length; i++) {
            require(t.get(i).isIntegerValue(), "token ids are integers");
            ids[i] = t.get(i).asIntegerValue().toInt();
        }
        boolean hasParent = parent != null && !parent.isNilValue();
        return new KvEvent.BlockStored(h, hasParent, hasParent ? hash(parent) : 0, ids, size, medium(medium));
    }

    private static KvEvent.BlockRemoved removed(Value hashes, Value medium) {
        return new KvEvent.BlockRemoved(hashes(hashes), medium(medium));
    }

    private static long[] hashes(Value v) {
        require(v != null && v.isArrayValue(), "block_hashes is an array");
        ArrayValue a = v.asArrayValue();
        long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = hash(a.get(i));
        }
        return out;
    }

    /** An engine block hash as a long: an integer's low 64 bits, or the last 8 bytes of a digest. */
    static long hash(Value v) {
        if (v.isIntegerValue()) {
            BigInteger big = v.asIntegerValue().toBigInteger();
            return big.longValue();
        }
        if (v.isBinaryValue() || v.isStringValue()) {
            byte[] b = v.isBinaryValue() ? v.asBinaryValue().asByteArray() : v.asStringValue().asByteArray();
            long h = 0;
            for (int i = Math.max(0, b.length - 8); i < b.length; i++) {
                h = (h << 8) | (b[i] & 0xFF);
            }
            return h;
        }
        throw new IllegalArgumentException("a block hash is an integer or bytes, not " + v.getValueType());
    }

    private static KvEvent.Medium medium(Value v) {
        return KvEvent.Medium.of(v == null || v.isNilValue() || !v.isStringValue() ? null
                : v.asStringValue().asString());
    }

    private static Value field(Map<Value, Value> m, String name) {
        for (Map.Entry<Value, Value> e : m.entrySet()) {
            if (e.getKey().isStringValue() && e.getKey().asStringValue().asString().equals(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException("malformed KV-event batch: " + what);
        }
    }
}
