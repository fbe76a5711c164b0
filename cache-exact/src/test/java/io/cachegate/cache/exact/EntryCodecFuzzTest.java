package io.cachegate.cache.exact;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes entry decoding with arbitrary bytes, as a shared Redis could hold them. Property: decode returns an entry
 * or throws {@link CorruptEntryException}, never another exception (which would fail a request instead of a miss).
 * Written against the public decode API only, so it holds across format versions.
 */
class EntryCodecFuzzTest {

    private static final EntryCodec CODEC = new EntryCodec(256);

    @FuzzTest(maxDuration = "10s")
    void decode_anyBytes_entryOrCorruptEntryException(byte[] bytes) {
        try {
            CODEC.decode(bytes);
        } catch (CorruptEntryException expected) {
            // the documented refusal: read as a miss
        }
    }
}
