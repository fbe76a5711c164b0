package io.cachegate.cli.analyze;

/**
 * A set of 64-bit digests (the leading bytes of SHA-256 keys) with a fixed maximum size: open addressing over a
 * {@code long[]} that doubles up to the capacity the maximum needs, so a million keys cost 16 MiB, not the
 * ~100 bytes per entry of a {@code HashSet<String>}. Once full it stops remembering new digests ({@link #saturated}),
 * and later repeats of those are not seen: the figures then under-count, never over-count. Zero is the empty slot
 * marker, so a digest of 0 is stored as 1 (a 2^-64 conflation).
 */
final class DigestSet {

    private static final double LOAD = 0.5;

    private final long maxSize;
    private long[] slots = new long[1024];
    private long size;
    private boolean saturated;

    DigestSet(long maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be at least 1, was " + maxSize);
        }
        this.maxSize = maxSize;
    }

    /** True when {@code digest} was added before; adds it otherwise (unless the set is full). */
    boolean seenOrAdd(long digest) {
        long d = digest == 0 ? 1 : digest;
        int mask = slots.length - 1;
        for (int i = mix(d) & mask; ; i = (i + 1) & mask) {
            long slot = slots[i];
            if (slot == d) {
                return true;
            }
            if (slot == 0) {
                if (size >= maxSize) {
                    saturated = true;
                    return false;
                }
                slots[i] = d;
                size++;
                if (size > slots.length * LOAD && slots.length < Integer.MAX_VALUE / 4) {
                    grow();
                }
                return false;
            }
        }
    }

    /** True when {@code digest} is in the set; never adds. */
    boolean contains(long digest) {
        long d = digest == 0 ? 1 : digest;
        int mask = slots.length - 1;
        for (int i = mix(d) & mask; ; i = (i + 1) & mask) {
            if (slots[i] == d) {
                return true;
            }
            if (slots[i] == 0) {
                return false;
            }
        }
    }

    long size() {
        return size;
    }

    /** True once a digest was turned away because the set was full. */
    boolean saturated() {
        return saturated;
    }

    private void grow() {
        long[] old = slots;
        slots = new long[old.length * 2];
        int mask = slots.length - 1;
        for (long d : old) {
            if (d != 0) {
                int i = mix(d) & mask;
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = d;
            }
        }
    }

    /** The digests are uniform already; folding the halves keeps both in the index. */
    private static int mix(long d) {
        return (int) (d ^ (d >>> 32));
    }
}
