package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.TestEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** HMAC-signed values: what was signed for a key reads back; anything else is refused, never served. */
class EntrySignerTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final String KEY = "cg:v1:{acme}:m@1:" + "a".repeat(64);

    private final EntrySigner signer = EntrySigner.hmacSha256(SECRET);
    private final EntryCodec codec = new EntryCodec(64);
    private final byte[] encoded = codec.encode(entry("{\"id\":\"x\"}", "doc:1"));

    @Test
    void verify_signedForTheSameKey_givesTheEntryBack() {
        byte[] signed = signer.sign(KEY, encoded);
        assertThat(signed).hasSize(encoded.length + EntrySigner.MAC_BYTES);
        assertThat(codec.decode(signer.verify(KEY, signed)).body()).isEqualTo(entry("{\"id\":\"x\"}").body());
    }

    @Test
    void verify_unsignedEntry_isRefused() {
        // An entry written without a key (or planted by anyone who can write to Redis): its CRC is fine, no MAC.
        assertThatThrownBy(() -> signer.verify(KEY, encoded)).isInstanceOf(CorruptEntryException.class);
    }

    @Test
    void verify_everyFlippedBit_isRefused() {
        byte[] signed = signer.sign(KEY, encoded);
        for (int i = 0; i < signed.length; i++) {
            byte[] tampered = signed.clone();
            tampered[i] ^= 0x01;
            assertThatThrownBy(() -> signer.verify(KEY, tampered)).as("bit flipped at %d", i)
                    .isInstanceOf(CorruptEntryException.class);
        }
    }

    @Test
    void verify_movedToAnotherKey_isRefused() {
        byte[] signed = signer.sign(KEY, encoded);
        String other = "cg:v1:{evil}:m@1:" + "a".repeat(64);
        assertThatThrownBy(() -> signer.verify(other, signed)).hasMessageContaining("moved");
    }

    @Test
    void verify_everyTruncation_isRefused() {
        byte[] signed = signer.sign(KEY, encoded);
        for (int n = 0; n < signed.length; n++) {
            byte[] cut = Arrays.copyOf(signed, n);
            assertThatThrownBy(() -> signer.verify(KEY, cut)).as("truncated to %d", n)
                    .isInstanceOf(CorruptEntryException.class);
        }
    }

    @Test
    void verify_signedWithAnotherSecret_isRefused() {
        byte[] other = SECRET.clone();
        other[0] ^= 1;
        byte[] signed = EntrySigner.hmacSha256(other).sign(KEY, encoded);
        assertThatThrownBy(() -> signer.verify(KEY, signed)).isInstanceOf(CorruptEntryException.class);
    }

    @Test
    void hmacSha256_keyShorterThan32Bytes_rejected() {
        assertThatThrownBy(() -> EntrySigner.hmacSha256(new byte[31])).hasMessageContaining("at least 32 bytes");
    }

    @Test
    void none_passesValuesThrough() {
        assertThat(EntrySigner.none().signs()).isFalse();
        assertThat(EntrySigner.none().sign(KEY, encoded)).isSameAs(encoded);
        assertThat(EntrySigner.none().verify(KEY, encoded)).isSameAs(encoded);
    }
}
