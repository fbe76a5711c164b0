package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.TestEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
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
    void roundTrip_freshFor_keptWithFlag_withoutItNoByteMore() {
        CacheEntry plain = entry("{\"id\":\"chatcmpl-1\"}", "doc:42");
        CacheEntry kept = plain.freshFor(600_000);
        byte[] plainBytes = codec.encode(plain);
        byte[] keptBytes = codec.encode(kept);
        assertThat(plainBytes[3] & EntryCodec.FLAG_FRESH_FOR).as("older gateways read it").isZero();
        assertThat(keptBytes[3] & EntryCodec.FLAG_FRESH_FOR).isEqualTo(EntryCodec.FLAG_FRESH_FOR);
        assertThat(keptBytes.length).isEqualTo(plainBytes.length + 8);
        assertEqual(codec.decode(keptBytes), kept);
        assertThat(codec.decode(keptBytes).freshForMillis()).isEqualTo(600_000);
        assertThat(codec.decode(plainBytes).freshForMillis()).isZero();
        String big = "{\"choices\":[{\"message\":{\"content\":\"" + "again ".repeat(500) + "\"}}]}";
        CacheEntry compressed = entry(big).freshFor(1);
        byte[] both = codec.encode(compressed);
        assertThat(both[3]).isEqualTo((byte) (EntryCodec.FLAG_DEFLATED | EntryCodec.FLAG_FRESH_FOR));
        assertEqual(codec.decode(both), compressed);
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

    /** Written by the codec before labels (main at 66bba63): {"id":"old"}, tag doc:42. */
    private static final String VERSION_1_ENTRY = "43470100b19f62ed0000018bcfe568000000000c00000022000000036d4031"
            + "000000057265712d310000000100000006646f633a34320000000c7b226964223a226f6c64227d";

    @Test
    void decode_entryWrittenBeforeLabels_readsAsUnlabelledWithoutUser() {
        CacheEntry old = codec.decode(HexFormat.of().parseHex(VERSION_1_ENTRY));
        assertThat(TestEntries.body(old)).isEqualTo("{\"id\":\"old\"}");
        assertThat(old.tags()).containsExactly("doc:42");
        assertThat(old.promptTokens()).isEqualTo(12);
        assertThat(old.labels()).isEmpty();
        assertThat(old.userDigest()).isEmpty();
        assertThat(old.readableWith(Set.of())).isTrue();
    }

    @Test
    void encode_unlabelledEntry_isStillVersion1_byteForByte() {
        CacheEntry entry = new CacheEntry("{\"id\":\"old\"}".getBytes(StandardCharsets.UTF_8), 1_700_000_000_000L,
                "m@1", "req-1", 12, 34, Set.of("doc:42"));
        // Gateways of the version before share the Redis: what they can read is written in their format.
        assertThat(HexFormat.of().formatHex(codec.encode(entry))).isEqualTo(VERSION_1_ENTRY);
    }

    @Test
    void roundTrip_labelsAndUser_writtenAsVersion2() {
        CacheEntry entry = labelled("short");
        byte[] bytes = codec.encode(entry);
        assertThat(bytes[2]).isEqualTo(EntryCodec.VERSION_LABELLED);
        assertEqual(codec.decode(bytes), entry);
        CacheEntry big = labelled("long and compressible ".repeat(100));
        assertEqual(codec.decode(codec.encode(big)), big);
        assertThat(codec.decode(codec.encode(big)).readableWith(Set.of("hr"))).isFalse();
        assertThat(codec.decode(codec.encode(big)).readableWith(Set.of("hr", "contracts", "x"))).isTrue();
    }

    @Test
    void decode_labelledEntryTruncatedOrFlipped_throwsCorrupt() {
        byte[] bytes = codec.encode(labelled("body"));
        for (int n = 0; n < bytes.length; n++) {
            byte[] cut = Arrays.copyOf(bytes, n);
            assertThatThrownBy(() -> codec.decode(cut)).as("truncated to %d", n).isInstanceOf(CorruptEntryException.class);
        }
        for (int i = 0; i < bytes.length; i++) {
            byte[] flipped = bytes.clone();
            flipped[i] ^= 0x01;
            assertThatThrownBy(() -> codec.decode(flipped)).as("bit flipped at %d", i)
                    .isInstanceOf(CorruptEntryException.class);
        }
    }

    private static final OriginSpan ORIGIN = new OriginSpan("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");

    @Test
    void roundTrip_originSpan_writtenAsVersion3() {
        CacheEntry plain = new CacheEntry("{\"id\":\"t\"}".getBytes(StandardCharsets.UTF_8), 1, "m@1", "r", 1, 2,
                Set.of("doc:1"), Set.of(), "", ORIGIN);
        byte[] bytes = codec.encode(plain);
        assertThat(bytes[2]).isEqualTo(EntryCodec.VERSION_TRACED);
        assertEqual(codec.decode(bytes), plain);
        assertThat(codec.decode(bytes).originSpan()).isEqualTo(ORIGIN);
        CacheEntry big = new CacheEntry("long and compressible ".repeat(100).getBytes(StandardCharsets.UTF_8), 1,
                "m@1", "r", 1, 2, Set.of(), Set.of("hr"), UserDigest.of("bob"), ORIGIN);
        assertEqual(codec.decode(codec.encode(big)), big);
    }

    @Test
    void encode_untracedEntry_hasNoOriginAndNoExtraByte() {
        CacheEntry labelled = labelled("body");
        CacheEntry traced = new CacheEntry(labelled.body(), labelled.createdAtMillis(), labelled.modelVersion(),
                labelled.originRequestId(), labelled.promptTokens(), labelled.completionTokens(), labelled.tags(),
                labelled.labels(), labelled.userDigest(), ORIGIN);
        // The origin span is the only difference: 16 bytes of trace id and 8 of span id, nothing for an untraced one.
        assertThat(codec.encode(traced).length - codec.encode(labelled).length).isEqualTo(24);
        assertThat(codec.decode(codec.encode(labelled)).originSpan()).isNull();
        assertThat(codec.decode(HexFormat.of().parseHex(VERSION_1_ENTRY)).originSpan()).isNull();
    }

    @Test
    void decode_tracedEntryTruncatedOrFlipped_throwsCorrupt() {
        byte[] bytes = codec.encode(new CacheEntry("body".getBytes(StandardCharsets.UTF_8), 1, "m", "r", 1, 2,
                Set.of(), Set.of(), "", ORIGIN));
        for (int n = 0; n < bytes.length; n++) {
            byte[] cut = Arrays.copyOf(bytes, n);
            assertThatThrownBy(() -> codec.decode(cut)).as("truncated to %d", n).isInstanceOf(CorruptEntryException.class);
        }
        for (int i = 0; i < bytes.length; i++) {
            byte[] flipped = bytes.clone();
            flipped[i] ^= 0x01;
            assertThatThrownBy(() -> codec.decode(flipped)).as("bit flipped at %d", i)
                    .isInstanceOf(CorruptEntryException.class);
        }
    }

    @Test
    void originSpan_badIds_rejected() {
        assertThatThrownBy(() -> new OriginSpan("0".repeat(32), "00f067aa0ba902b7")).hasMessageContaining("traceId");
        assertThatThrownBy(() -> new OriginSpan("4bf92f3577b34da6a3ce929d0e0e4736", "XYZ")).hasMessageContaining("spanId");
    }

    private static CacheEntry labelled(String body) {
        return new CacheEntry(body.getBytes(StandardCharsets.UTF_8), 1, "m@1", "r", 1, 2, Set.of("doc:1"),
                Set.of("hr", "contracts"), UserDigest.of("alice"));
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
