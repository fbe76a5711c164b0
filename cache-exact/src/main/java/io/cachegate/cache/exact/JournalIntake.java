package io.cachegate.cache.exact;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides which records of other gateways a {@link RedisJournal} reader takes: signed, only a record whose MAC over
 * the stream, its origin, its sequence number and the record holds; signed or not, each (origin, number) once
 * ({@link SequenceWindow}: an append sent again after a timeout that had landed is a duplicate, an old copy is
 * refused). Per origin it keeps the highest number taken, which a saved {@link RedisJournal.Position} holds, so a
 * reader restarted from it takes none of those numbers again. {@link #offer} runs on one thread at a time; {@link
 * #taken} may be read from any.
 */
final class JournalIntake {

    /** Origins whose numbers are remembered (the least recently heard forgotten first). */
    static final int MAX_ORIGINS = 10_000;

    /** What became of a record offered. */
    enum Outcome {
        /** New and genuine: give it to the reader. */
        TAKEN,
        /** A second copy of a record taken (an append sent again after a timeout, whose first send had landed). */
        DUPLICATE,
        /** Its MAC does not hold (planted, or signed with another key), or a copy older than any retry. */
        REFUSED
    }

    /** A record's outcome and, when taken, its text. */
    record Offered(Outcome outcome, String text) {
    }

    private static final Offered DUPLICATE = new Offered(Outcome.DUPLICATE, null);
    private static final Offered REFUSED = new Offered(Outcome.REFUSED, null);

    private final String stream;
    private final EntrySigner signer;
    /** Per origin, the numbers taken. */
    private final Map<String, SequenceWindow> windows = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SequenceWindow> eldest) {
            boolean full = size() > MAX_ORIGINS;
            if (full) {
                highest.remove(eldest.getKey());
            }
            return full;
        }
    };
    /** Per origin, the highest number in its window. */
    private final Map<String, Long> highest = new ConcurrentHashMap<>();

    /** @param taken per origin, the highest number taken before a restart: none at or below it is taken again */
    JournalIntake(String stream, EntrySigner signer, Map<String, Long> taken) {
        this.stream = stream;
        this.signer = signer;
        taken.entrySet().stream().limit(MAX_ORIGINS).forEach(t -> {
            windows.put(t.getKey(), SequenceWindow.takenUpTo(t.getValue()));
            highest.put(t.getKey(), t.getValue());
        });
    }

    /** What a record's MAC is bound to besides the record: its stream, origin and number (no copy elsewhere). */
    static String macKey(String stream, String origin, String number) {
        return stream + '\n' + origin + '\n' + number;
    }

    /** Whether the record {@code from} wrote under {@code number} is taken (with its text) or why not. */
    Offered offer(String from, byte[] number, byte[] record) {
        String text = verified(from, number, record);
        if (text == null) {
            return REFUSED;
        }
        return switch (window(from, number)) {
            case TAKEN -> new Offered(Outcome.TAKEN, text);
            case COPY -> DUPLICATE;
            case TOO_OLD -> REFUSED;
        };
    }

    /** Per origin, the highest number taken: what a saved position keeps. */
    Map<String, Long> taken() {
        return Map.copyOf(highest);
    }

    /** The record's text once its MAC holds (always, unsigned); null when it does not. */
    private String verified(String from, byte[] number, byte[] record) {
        if (!signer.signs()) {
            return new String(record, StandardCharsets.UTF_8);
        }
        try {
            String n = number == null ? "" : new String(number, StandardCharsets.US_ASCII);
            return new String(signer.verify(macKey(stream, from, n), record), StandardCharsets.UTF_8);
        } catch (CorruptEntryException e) {
            return null;
        }
    }

    /**
     * Whether the record's number, from its origin, is new. Signed, the MAC vouches for the number; unsigned it only
     * keeps an append sent again from counting twice, and a record without a readable number is taken as it is.
     */
    private SequenceWindow.Offer window(String from, byte[] number) {
        long n;
        try {
            n = Long.parseLong(number == null ? "" : new String(number, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return signer.signs() ? SequenceWindow.Offer.TOO_OLD : SequenceWindow.Offer.TAKEN;
        }
        SequenceWindow.Offer offer = windows.computeIfAbsent(from, o -> new SequenceWindow()).take(n);
        if (offer == SequenceWindow.Offer.TAKEN) {
            highest.merge(from, n, Math::max);
        }
        return offer;
    }
}
