package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.TestEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EntryCodecTest {

    private final EntryCodec codec = new EntryCodec(64);

    @Test
    void roundTrip_smallBody_storedRaw() {
        CacheEntry entry = entry("{\"id\":\"chatcmpl-1\"}", "doc:42", "kb:7");
        byte[] bytes = codec.encode(entry);
        assertThat(bytes[3] & EntryCodec.FLAG_DEFLATED).isZero();
        assertEqual(codec.decode(bytes), entry);
    }

    @Test
    void roundTrip_largeBody_compressed() {
        String body = "{\"choices\":[{\"message\":{\"content\":\"" + "the same words again ".repeat(500) + "\"}}]}";
        CacheEntry entry = entry(body, "doc:42");
        byte[] bytes = codec.encode(entry);
        assertThat(bytes[3] & EntryCodec.FLAG_DEFLATED).isEqualTo(EntryCodec.FLAG_DEFLATED);
        assertThat(bytes.length).isLessThan(body.length() / 4);
        assertEqual(codec.decode(bytes), entry);
    }

    @Test
    void roundTrip_incompressibleBody_storedRaw() {
        byte[] noise = new byte[4096];
        new Random(1).nextBytes(noise);
        CacheEntry entry = new CacheEntry(noise, 5, "m", "r", 0, 0, Set.of());
        byte[] bytes = codec.encode(entry);
        assertThat(bytes[3] & EntryCodec.FLAG_DEFLATED).isZero();
        assertEqual(codec.decode(bytes), entry);
    }

    @Test
    void roundTrip_emptyFieldsAndUnicode() {
        CacheEntry entry = new CacheEntry(new byte[0], 0, "", "", 0, 0, Set.of("ünïcødé 🚀", ""));
        assertEqual(codec.decode(codec.encode(entry)), entry);
        CacheEntry big = new CacheEntry("é".repeat(10_000).getBytes(StandardCharsets.UTF_8), -1, "m@1", "r",
                Integer.MAX_VALUE, 7, Set.of());
        assertEqual(codec.decode(new EntryCodec(0).encode(big)), big);
    }

    @Test
    void decode_garbage_throwsCorrupt() {
        assertThatThrownBy(() -> codec.decode(new byte[0])).isInstanceOf(CorruptEntryException.class);
        assertThatThrownBy(() -> codec.decode(null)).isInstanceOf(CorruptEntryException.class);
        assertThatThrownBy(() -> codec.decode("{\"not\":\"ours\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CorruptEntryException.class).hasMessageContaining("magic");
        Random random = new Random(7);
        for (int i = 0; i < 1000; i++) {
            byte[] noise = new byte[random.nextInt(200)];
            random.nextBytes(noise);
            if (noise.length > 1) {
                noise[0] = 'C';
                noise[1] = 'G';
            }
            assertThatThrownBy(() -> codec.decode(noise)).isInstanceOf(CorruptEntryException.class);
        }
    }

    @Test
    void decode_everyTruncation_throwsCorrupt() {
        for (String body : new String[] {"short", "long and compressible ".repeat(100)}) {
            byte[] bytes = codec.encode(entry(body, "a", "b"));
            for (int n = 0; n < bytes.length; n++) {
                byte[] cut = Arrays.copyOf(bytes, n);
                assertThatThrownBy(() -> codec.decode(cut)).as("truncated to %d", n).isInstanceOf(CorruptEntryException.class);
            }
        }
    }

    @Test
    void decode_flippedBitOrUnknownVersion_throwsCorrupt() {
        byte[] bytes = codec.encode(entry("long and compressible ".repeat(100), "t"));
        for (int i = 0; i < bytes.length; i += 7) {
            byte[] flipped = bytes.clone();
            flipped[i] ^= 0x10;
            assertThatThrownBy(() -> codec.decode(flipped)).isInstanceOf(CorruptEntryException.class);
        }
        byte[] future = bytes.clone();
        future[2] = 9;
        assertThatThrownBy(() -> codec.decode(future)).hasMessageContaining("version 9");
    }

    @Test
    void constructor_negativeThreshold_rejected() {
        assertThatThrownBy(() -> new EntryCodec(-1)).hasMessageContaining("compressAboveBytes");
    }

    private static void assertEqual(CacheEntry actual, CacheEntry expected) {
        assertThat(actual.body()).isEqualTo(expected.body());
        assertThat(actual).usingRecursiveComparison().isEqualTo(expected);
    }
}
