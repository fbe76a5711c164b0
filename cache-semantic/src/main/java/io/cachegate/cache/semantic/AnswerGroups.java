package io.cachegate.cache.semantic;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which cached entries give the same answer: each entry's group, from its answer text (equal after collapsing
 * white space) and from verdicts that found two entries' answers to agree (a sampling model words them
 * differently). The error budget reads it as evidence: a query whose nearest entries mostly share one answer is
 * far more likely to be answered rightly by it than one whose neighbours disagree ({@link NeighbourhoodAgreement}).
 *
 * <p>Kept in the gateway's memory, like {@link HitEvidence} (and saved with it, {@link EvidenceFile}; shared with the
 * fleet through it): an entry whose answer this gateway never learned has no group, counts as an answer of its own,
 * and so only ever lowers the estimate.
 * Bounded at {@code maxEntries} (least recently filed or read first out). Thread-safe.
 */
public final class AnswerGroups {

    /** The group of an entry whose answer is not known here. */
    public static final long UNKNOWN = 0;

    private final Map<String, Long> groups;

    public AnswerGroups(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
        this.groups = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > maxEntries;
            }
        };
    }

    /**
     * Files an entry's answer, and returns its group; an empty text (no text in the answer, a tool call) leaves it
     * without a group ({@link #UNKNOWN}).
     */
    public long file(String entryKey, String answerText) {
        String text = normalize(answerText);
        if (text.isEmpty()) {
            return UNKNOWN;
        }
        long group = groupOf(text);
        assign(entryKey, group);
        return group;
    }

    /** Puts an entry in a group another gateway filed it in. */
    void assign(String entryKey, long group) {
        synchronized (groups) {
            groups.put(entryKey, group);
        }
    }

    /** A verdict found {@code entryKey}'s answer to agree with {@code sameAsKey}'s: it joins that group. */
    public void join(String entryKey, String sameAsKey) {
        synchronized (groups) {
            Long group = groups.get(sameAsKey);
            if (group != null) {
                groups.put(entryKey, group);
            }
        }
    }

    /** The entry's group, {@link #UNKNOWN} when its answer was not filed here. */
    public long group(String entryKey) {
        synchronized (groups) {
            Long group = groups.get(entryKey);
            return group == null ? UNKNOWN : group;
        }
    }

    /** Every entry's group, the least recently filed or read first: what {@link EvidenceFile} keeps. */
    Map<String, Long> saved() {
        synchronized (groups) {
            return new LinkedHashMap<>(groups);
        }
    }

    /** Files groups {@link #saved} returned, in its order (the last one the most recent). */
    void restore(Map<String, Long> saved) {
        synchronized (groups) {
            groups.putAll(saved);
        }
    }

    public int size() {
        synchronized (groups) {
            return groups.size();
        }
    }

    /** The answer text as compared: outer white space stripped, inner runs collapsed to one space. */
    public static String normalize(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }

    /** 64 bits of the text's FNV-1a hash, never {@link #UNKNOWN}: two different answers collide once in 2^64. */
    private static long groupOf(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash == UNKNOWN ? 1 : hash;
    }
}
