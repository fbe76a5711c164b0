package io.cachegate.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Encodes a batch of {@link KvEvent}s as vLLM's msgpack payload: the batch an array
 * {@code [ts, [event, ...], data_parallel_rank]} and each event a map tagged by {@code "type"} with vLLM's
 * field names, as msgspec writes {@code KVEventBatch} since vLLM PR #42892 dropped {@code array_like} from the
 * events (a v0.26 capture: {@code [1789095808.83, [{'type': 'BlockStored', 'block_hashes': [...], ...}], 0]}).
 * The optional fields vLLM omits at their defaults ({@code extra_keys}, {@code group_idx}, ...) are omitted.
 */
final class KvEventCodec {

    static final String MEDIUM_GPU = "GPU";

    private KvEventCodec() {
    }

    static byte[] encode(double ts, List<KvEvent> events) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            packer.packArrayHeader(3).packDouble(ts).packArrayHeader(events.size());
            for (KvEvent event : events) {
                pack(packer, event);
            }
            packer.packInt(0); // data_parallel_rank: one engine per replica
            return packer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("msgpack into memory cannot fail", e);
        }
    }

    private static void pack(MessagePacker packer, KvEvent event) throws IOException {
        if (event instanceof KvEvent.BlockStored stored) {
            packer.packMapHeader(8);
            packer.packString("type").packString("BlockStored");
            packer.packString("block_hashes");
            packLongs(packer, stored.blockHashes());
            packer.packString("parent_block_hash");
            if (stored.parentBlockHash() == null) {
                packer.packNil();
            } else {
                packer.packLong(stored.parentBlockHash());
            }
            packer.packString("token_ids").packArrayHeader(stored.tokenIds().length);
            for (int id : stored.tokenIds()) {
                packer.packInt(id);
            }
            packer.packString("block_size").packInt(stored.blockSize());
            packer.packString("lora_id").packNil();
            packer.packString("medium").packString(MEDIUM_GPU);
            packer.packString("lora_name").packNil();
        } else if (event instanceof KvEvent.BlockRemoved removed) {
            packer.packMapHeader(3);
            packer.packString("type").packString("BlockRemoved");
            packer.packString("block_hashes");
            packLongs(packer, removed.blockHashes());
            packer.packString("medium").packString(MEDIUM_GPU);
        } else {
            packer.packMapHeader(1);
            packer.packString("type").packString("AllBlocksCleared");
        }
    }

    private static void packLongs(MessagePacker packer, long[] values) throws IOException {
        packer.packArrayHeader(values.length);
        for (long value : values) {
            packer.packLong(value);
        }
    }
}
