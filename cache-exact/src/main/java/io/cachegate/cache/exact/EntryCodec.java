package io.cachegate.cache.exact;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32C;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Turns a {@link CacheEntry} into the bytes stored in Redis and back. Layout (big-endian):
 * {@code 'C' 'G' version flags crc32c} then {@code createdAt promptTokens completionTokens}, the
 * length-prefixed UTF-8 strings model version and origin request id, the tag count and tags, the
 * body length, and the body; with the compressed flag, the raw body length precedes the deflated body.
 * Version 2 adds, after the tags, the label count and labels and the end user's digest; an entry with neither is
 * still written as version 1, and version 1 entries read as unlabelled, so old and new gateways share a Redis.
 * Version 3 adds, after the user digest, the origin span (16 bytes of trace id, 8 of span id); only an entry that
 * has one is written as version 3, so an untraced entry costs no byte more (and older gateways still read it).
 * The fresh-for flag adds, after the token counts, how long the entry is fresh (milliseconds): set only on an entry
 * kept past its TTL to answer stale, so a policy without a stale window writes what older gateways read.
 */
public final class EntryCodec {

    static final byte MAGIC_0 = 'C';
    static final byte MAGIC_1 = 'G';
    static final byte VERSION = 1;
    static final byte VERSION_LABELLED = 2;
    static final byte VERSION_TRACED = 3;
    static final int FLAG_DEFLATED = 1;
    static final int FLAG_FRESH_FOR = 2;
    // magic (2) + version + flags + crc32c (4): the checksum covers everything after it, so a
    // truncated or bit-flipped value is caught before any field is trusted.
    private static final int HEADER = 8;
    // An answer larger than this is not something a model server sends; a claim above it is garbage
    // (and refusing it keeps a corrupt length from allocating gigabytes).
    static final int MAX_BODY_BYTES = 64 << 20;
    private static final int MAX_STRING_BYTES = 1 << 16;
    private static final int MAX_TAGS = 1 << 12;
    private static final int MAX_LABELS = 1 << 12;

    private final int compressAboveBytes;

    /** Bodies longer than {@code compressAboveBytes} are deflated (when that makes them smaller). */
    public EntryCodec(int compressAboveBytes) {
        if (compressAboveBytes < 0) {
            throw new IllegalArgumentException("compressAboveBytes must be >= 0, was " + compressAboveBytes);
        }
        this.compressAboveBytes = compressAboveBytes;
    }

    public byte[] encode(CacheEntry entry) {
        byte[] body = entry.body();
        byte[] stored = body;
        int flags = 0;
        if (body.length > compressAboveBytes) {
            byte[] deflated = deflate(body);
            if (deflated.length < body.length) {
                stored = deflated;
                flags |= FLAG_DEFLATED;
            }
        }
        byte[] modelVersion = utf8(entry.modelVersion());
        byte[] requestId = utf8(entry.originRequestId());
        byte[][] tags = sortedUtf8(entry.tags());
        byte[][] labels = sortedUtf8(entry.labels());
        byte[] user = utf8(entry.userDigest());
        byte[] origin = entry.originSpan() == null ? null : entry.originSpan().bytes();
        boolean labelled = labels.length > 0 || user.length > 0 || origin != null;
        if (entry.freshForMillis() > 0) {
            flags |= FLAG_FRESH_FOR;
        }
        int size = HEADER + 8 + 4 + 4 + (entry.freshForMillis() > 0 ? 8 : 0) + 4 + modelVersion.length + 4 + requestId.length + 4
                + ((flags & FLAG_DEFLATED) != 0 ? 4 : 0) + 4 + stored.length;
        for (byte[] tag : tags) {
            size += 4 + tag.length;
        }
        if (labelled) {
            size += 4 + 4 + user.length;
            for (byte[] label : labels) {
                size += 4 + label.length;
            }
        }
        if (origin != null) {
            size += origin.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(MAGIC_0).put(MAGIC_1).put(origin != null ? VERSION_TRACED : labelled ? VERSION_LABELLED : VERSION).put((byte) flags).putInt(0);
        out.putLong(entry.createdAtMillis()).putInt(entry.promptTokens()).putInt(entry.completionTokens());
        if (entry.freshForMillis() > 0) {
            out.putLong(entry.freshForMillis());
        }
        out.putInt(modelVersion.length).put(modelVersion);
        out.putInt(requestId.length).put(requestId);
        putAll(out, tags);
        if (labelled) {
            putAll(out, labels);
            out.putInt(user.length).put(user);
        }
        if (origin != null) {
            out.put(origin);
        }
        if ((flags & FLAG_DEFLATED) != 0) {
            out.putInt(body.length);
        }
        out.putInt(stored.length).put(stored);
        byte[] bytes = out.array();
        CRC32C crc = new CRC32C();
        crc.update(bytes, HEADER, bytes.length - HEADER);
        ByteBuffer.wrap(bytes, 4, 4).putInt((int) crc.getValue());
        return bytes;
    }

    /** Decodes what {@link #encode} wrote; anything else throws {@link CorruptEntryException}. */
    public CacheEntry decode(byte[] bytes) {
        if (bytes == null || bytes.length < HEADER) {
            throw new CorruptEntryException("entry too short: " + (bytes == null ? "null" : bytes.length + " bytes"));
        }
        if (bytes[0] != MAGIC_0 || bytes[1] != MAGIC_1) {
            throw new CorruptEntryException("not a cache entry: bad magic");
        }
        byte version = bytes[2];
        if (version != VERSION && version != VERSION_LABELLED && version != VERSION_TRACED) {
            throw new CorruptEntryException("unknown entry format version " + bytes[2]);
        }
        int flags = bytes[3];
        if ((flags & ~(FLAG_DEFLATED | FLAG_FRESH_FOR)) != 0) {
            throw new CorruptEntryException("unknown entry flags " + flags);
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CRC32C crc = new CRC32C();
        crc.update(bytes, HEADER, bytes.length - HEADER);
        if (in.getInt(4) != (int) crc.getValue()) {
            throw new CorruptEntryException("entry checksum mismatch (truncated or damaged)");
        }
        try {
            in.position(HEADER);
            long createdAt = in.getLong();
            int promptTokens = in.getInt();
            int completionTokens = in.getInt();
            long freshFor = 0;
            if ((flags & FLAG_FRESH_FOR) != 0) {
                freshFor = in.getLong();
                if (freshFor <= 0) {
                    throw new CorruptEntryException("fresh-for is " + freshFor + " ms, must be positive");
                }
            }
            String modelVersion = string(in, "model version");
            String requestId = string(in, "origin request id");
            int tagCount = length(in, MAX_TAGS, "tag count");
            Set<String> tags = new HashSet<>(tagCount * 2);
            for (int i = 0; i < tagCount; i++) {
                tags.add(string(in, "tag"));
            }
            Set<String> labels = Set.of();
            String user = "";
            if (version >= VERSION_LABELLED) {
                int labelCount = length(in, MAX_LABELS, "label count");
                labels = new HashSet<>(labelCount * 2);
                for (int i = 0; i < labelCount; i++) {
                    labels.add(string(in, "label"));
                }
                user = string(in, "user digest");
            }
            OriginSpan origin = null;
            if (version == VERSION_TRACED) {
                origin = originSpan(in);
            }
            int rawLength = (flags & FLAG_DEFLATED) != 0 ? length(in, MAX_BODY_BYTES, "body length") : -1;
            int storedLength = length(in, MAX_BODY_BYTES, "stored body length");
            if (storedLength != in.remaining()) {
                throw new CorruptEntryException("body is " + in.remaining() + " bytes, header says " + storedLength);
            }
            byte[] body = rawLength < 0
                    ? copy(bytes, in.position(), storedLength)
                    : inflate(bytes, in.position(), storedLength, rawLength);
            return new CacheEntry(body, createdAt, modelVersion, requestId, promptTokens, completionTokens, tags,
                    labels, user, origin, freshFor);
        } catch (BufferUnderflowException e) {
            throw new CorruptEntryException("entry truncated", e);
        }
    }

    private static OriginSpan originSpan(ByteBuffer in) {
        int n = OriginSpan.TRACE_ID_BYTES + OriginSpan.SPAN_ID_BYTES;
        if (in.remaining() < n) {
            throw new CorruptEntryException("entry truncated in its origin span");
        }
        int at = in.position();
        in.position(at + n);
        try {
            return OriginSpan.of(in.array(), at);
        } catch (IllegalArgumentException e) {
            throw new CorruptEntryException("origin span is invalid (all-zero id)", e);
        }
    }

    private static byte[][] sortedUtf8(Set<String> values) {
        return values.stream().sorted().map(EntryCodec::utf8).toArray(byte[][]::new);
    }

    private static void putAll(ByteBuffer out, byte[][] values) {
        out.putInt(values.length);
        for (byte[] value : values) {
            out.putInt(value.length).put(value);
        }
    }

    private static int length(ByteBuffer in, int max, String what) {
        int n = in.getInt();
        if (n < 0 || n > max) {
            throw new CorruptEntryException(what + " " + n + " is outside 0.." + max);
        }
        return n;
    }

    private static String string(ByteBuffer in, String what) {
        int n = length(in, Math.min(MAX_STRING_BYTES, in.remaining()), what + " length");
        ByteBuffer slice = in.slice(in.position(), n);
        in.position(in.position() + n);
        if (ascii(in.array(), slice.arrayOffset(), n)) {
            // The usual case (ids, versions, tags): ASCII is valid UTF-8, no decoder needed.
            return new String(in.array(), slice.arrayOffset(), n, StandardCharsets.US_ASCII);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(slice).toString();
        } catch (CharacterCodingException e) {
            throw new CorruptEntryException(what + " is not UTF-8", e);
        }
    }

    private static boolean ascii(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private static byte[] utf8(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("string field longer than " + MAX_STRING_BYTES + " bytes");
        }
        return bytes;
    }

    private static byte[] copy(byte[] bytes, int offset, int length) {
        byte[] body = new byte[length];
        System.arraycopy(bytes, offset, body, 0, length);
        return body;
    }

    private static byte[] deflate(byte[] body) {
        // Level 1: JSON still shrinks 3-5x, and the write-back path stays cheap.
        Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
        try {
            deflater.setInput(body);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length / 3));
            byte[] chunk = new byte[8192];
            while (!deflater.finished()) {
                out.write(chunk, 0, deflater.deflate(chunk));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    private static byte[] inflate(byte[] bytes, int offset, int length, int rawLength) {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(bytes, offset, length);
            byte[] body = new byte[rawLength];
            int n = 0;
            while (n < rawLength) {
                int read = inflater.inflate(body, n, rawLength - n);
                if (read == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                n += read;
            }
            if (n != rawLength) {
                throw new CorruptEntryException("compressed body inflates to " + n + " bytes, header says " + rawLength);
            }
            return body;
        } catch (DataFormatException e) {
            throw new CorruptEntryException("compressed body is damaged", e);
        } finally {
            inflater.end();
        }
    }
}
