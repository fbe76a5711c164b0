package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

class KvEventDecoderTest {

    @Test
    void readsVllmsCurrentFormTaggedMapsInAnArrayBatch() {
        byte[] payload = new KvTestPublisher.Events()
                .stored(new long[] {11, 12}, null, new int[] {1, 2, 3, 4}, 2, "GPU")
                .removed(new long[] {11}, "CPU")
                .cleared()
                .pack();
        KvEvent.Batch batch = KvEventDecoder.decode(payload);
        assertThat(batch.ts()).isGreaterThan(1.7e9);
        assertThat(batch.events()).hasSize(3);
        KvEvent.BlockStored stored = (KvEvent.BlockStored) batch.events().get(0);
        assertThat(stored.hashes()).containsExactly(11, 12);
        assertThat(stored.hasParent()).isFalse();
        assertThat(stored.tokenIds()).containsExactly(1, 2, 3, 4);
        assertThat(stored.blockSize()).isEqualTo(2);
        assertThat(stored.medium()).isEqualTo(KvEvent.Medium.GPU);
        KvEvent.BlockRemoved removed = (KvEvent.BlockRemoved) batch.events().get(1);
        assertThat(removed.medium()).isEqualTo(KvEvent.Medium.CPU);
        assertThat(batch.events().get(2)).isInstanceOf(KvEvent.AllBlocksCleared.class);
    }

    @Test
    void readsTheOlderTaggedArraysAMapBatchBytesHashesAndUnsigned64BitInts() throws IOException {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packMapHeader(3);
            p.packString("ts").packLong(1_700_000_000L);
            p.packString("events").packArrayHeader(3);
            // ["BlockStored", hashes, parent, token_ids, block_size, lora_id, medium]
            p.packArrayHeader(7).packString("BlockStored");
            p.packArrayHeader(1).packBigInteger(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));
            byte[] digest = new byte[32];
            digest[31] = 7;
            p.packBinaryHeader(digest.length).writePayload(digest);
            p.packArrayHeader(2).packInt(5).packInt(6);
            p.packInt(2).packNil().packNil();
            p.packArrayHeader(3).packString("BlockRemoved").packArrayHeader(1).packLong(-1).packString("GPU");
            p.packArrayHeader(1).packString("SomethingNew");
            p.packString("data_parallel_rank").packInt(0);
            KvEvent.Batch batch = KvEventDecoder.decode(p.toByteArray());
            assertThat(batch.ts()).isEqualTo(1.7e9);
            assertThat(batch.events()).hasSize(2); // the unknown type is skipped
            KvEvent.BlockStored stored = (KvEvent.BlockStored) batch.events().get(0);
            assertThat(stored.hashes()).containsExactly(-1L); // 2^64 - 1, read as its 64 bits
            assertThat(stored.hasParent()).isTrue();
            assertThat(stored.parent()).isEqualTo(7L); // the digest's low 8 bytes
            assertThat(stored.medium()).isEqualTo(KvEvent.Medium.GPU); // nil medium: GPU
        }
    }

    @Test
    void rejectsWhatIsNotABatch() throws IOException {
        assertThatThrownBy(() -> KvEventDecoder.decode(new byte[] {(byte) 0xc1}))
                .isInstanceOf(IllegalArgumentException.class);
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packString("hello");
            assertThatThrownBy(() -> KvEventDecoder.decode(p.toByteArray()))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        byte[] wrongTokens = new KvTestPublisher.Events()
                .stored(new long[] {1, 2}, null, new int[] {1, 2, 3}, 2, "GPU").pack();
        assertThatThrownBy(() -> KvEventDecoder.decode(wrongTokens))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("block_size");
    }
}
