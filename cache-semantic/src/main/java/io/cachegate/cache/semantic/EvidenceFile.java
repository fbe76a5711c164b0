package io.cachegate.cache.semantic;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The file a gateway keeps its error budget's evidence ({@link HitEvidence}) in across restarts: without it, a
 * restart (every deploy) closes every class until some 800 new verdicts each reopen it, and forgets which entries a
 * wrong audit demoted. Binary, written to a temporary file and moved over the old one, so a reader sees a whole
 * file or the previous one; a file that ends early or holds impossible counts is refused whole.
 *
 * <p>The counts are verdicts in bins of the priors' probability, so they mean something only to the same priors: the
 * header holds a {@link #fingerprint} of the embedding model and of the priors' parameters, and a file written under
 * another one is not read (the evidence starts empty, as before this file existed).
 */
public final class EvidenceFile {

    private static final int MAGIC = 0x43474556;  // "CGEV"
    /**
     * 2 adds the fleet's position ({@link HitEvidence.FleetPosition}) after the answer groups, 3 the sequence numbers
     * taken in it; 1 and 2 are still read (a position without numbers).
     */
    private static final int VERSION = 3;
    /** Other gateways' origins whose numbers a position keeps, at most (as the shared log's reader does). */
    private static final int MAX_ORIGINS = 10_000;
    /** In the fingerprint: the counts' meaning, unchanged since the first version. */
    private static final int COUNTS_VERSION = 1;
    private static final int END = 0x454e4421;    // "END!"
    /** Watch settings kept a pool: one per budget and watch a policy has used; the oldest beyond are dropped. */
    private static final int MAX_WATCHES = 1024;

    private EvidenceFile() {
    }

    /**
     * What the saved counts' bins mean: the embedding model's id, the neighbourhood agreement's fit and the pair
     * classifier's bundled parameters, hashed.
     */
    public static String fingerprint(String modelId) {
        try (InputStream pair = LearnedParameters.class.getResourceAsStream(LearnedParameters.BUNDLED_RESOURCE)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(("evidence/" + COUNTS_VERSION + "|" + modelId + "|" + NeighbourhoodAgreement.parameters() + "|")
                    .getBytes(StandardCharsets.UTF_8));
            if (pair != null) {
                sha.update(pair.readAllBytes());
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Writes what a restart would otherwise lose to {@code file}, replacing it at once: the pools' verdict counts,
     * the classes the watch keeps closed, each entry's verdicts and demotion, the answer groups.
     */
    public static void write(Path file, String fingerprint, HitEvidence evidence) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temporary = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
        try {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                    Files.newOutputStream(temporary), 1 << 16))) {
                out.writeInt(MAGIC);
                out.writeInt(VERSION);
                out.writeUTF(fingerprint);
                writePools(out, evidence.savedPools());
                writeEntries(out, evidence.savedEntries());
                Map<String, Long> groups = evidence.answers().saved();
                out.writeInt(groups.size());
                for (Map.Entry<String, Long> g : groups.entrySet()) {
                    out.writeUTF(g.getKey());
                    out.writeLong(g.getValue());
                }
                // Read after the counts: a position is never behind what they hold (see HitEvidence#fleetPosition).
                HitEvidence.FleetPosition position = evidence.fleetPosition();
                out.writeBoolean(position != null);
                if (position != null) {
                    out.writeUTF(position.origin());
                    out.writeUTF(position.lastId());
                    List<Map.Entry<String, Long>> taken = position.taken().entrySet().stream()
                            .limit(MAX_ORIGINS).toList();
                    out.writeInt(taken.size());
                    for (Map.Entry<String, Long> t : taken) {
                        out.writeUTF(t.getKey());
                        out.writeLong(t.getValue());
                    }
                }
                out.writeInt(END);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * Reads {@code file} into {@code evidence}, which has nothing yet. False (nothing read) when there is no such file
     * or it was written for another model or other priors.
     *
     * @throws IOException the file cannot be read or is not whole (nothing read)
     */
    public static boolean read(Path file, String fingerprint, HitEvidence evidence) throws IOException {
        if (!evidence.isEmpty()) {
            throw new IllegalStateException("evidence is read before the first verdict, never merged");
        }
        Map<String, HitEvidence.SavedPool> pools = new LinkedHashMap<>();
        Map<String, HitEvidence.SavedEntry> entries = new LinkedHashMap<>();
        Map<String, Long> groups = new LinkedHashMap<>();
        HitEvidence.FleetPosition position = null;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            if (in.readInt() != MAGIC) {
                throw new IOException(file + " is not a Cachegate evidence file");
            }
            int version = in.readInt();
            if (version < 1 || version > VERSION || !in.readUTF().equals(fingerprint)) {
                return false;
            }
            readPools(in, pools);
            readEntries(in, entries, evidence.maxEntries());
            int groupCount = count(in, evidence.maxEntries());
            for (int i = 0; i < groupCount; i++) {
                groups.put(in.readUTF(), in.readLong());
            }
            if (version >= 2 && in.readBoolean()) {
                String origin = in.readUTF();
                String lastId = in.readUTF();
                Map<String, Long> taken = new LinkedHashMap<>();
                int origins = version >= 3 ? count(in, MAX_ORIGINS) : 0;
                for (int i = 0; i < origins; i++) {
                    taken.put(in.readUTF(), in.readLong());
                }
                position = new HitEvidence.FleetPosition(origin, lastId, taken);
            }
            if (in.readInt() != END) {
                throw new IOException(file + " does not end as an evidence file does");
            }
        } catch (NoSuchFileException e) {
            return false;
        } catch (EOFException e) {
            throw new IOException(file + " ends early: not read", e);
        }
        pools.forEach(evidence::restorePool);
        entries.forEach(evidence::restoreEntry);
        evidence.answers().restore(groups);
        evidence.fleetPosition(position);
        return true;
    }

    private static void writePools(DataOutputStream out, Map<String, HitEvidence.SavedPool> pools) throws IOException {
        out.writeInt(pools.size());
        for (Map.Entry<String, HitEvidence.SavedPool> p : pools.entrySet()) {
            out.writeUTF(p.getKey());
            writeLongs(out, p.getValue().right());
            writeLongs(out, p.getValue().wrong());
            // The settings in force come last; those read from an earlier file and not asked for since go first.
            List<Map.Entry<String, ClassWatch.Closed>> closed = new ArrayList<>(p.getValue().closed().entrySet());
            closed = closed.subList(Math.max(0, closed.size() - MAX_WATCHES), closed.size());
            out.writeInt(closed.size());
            for (Map.Entry<String, ClassWatch.Closed> c : closed) {
                out.writeUTF(c.getKey());
                int bits = 0;
                for (int j = 0; j < ProbabilityBins.COUNT; j++) {
                    bits |= c.getValue().closed()[j] ? 1 << j : 0;
                }
                out.writeInt(bits);
                writeLongs(out, c.getValue().markN());
                writeLongs(out, c.getValue().markK());
            }
        }
    }

    private static void readPools(DataInputStream in, Map<String, HitEvidence.SavedPool> pools) throws IOException {
        int poolCount = count(in, Integer.MAX_VALUE);
        for (int p = 0; p < poolCount; p++) {
            String name = in.readUTF();
            long[] right = readCounts(in);
            long[] wrong = readCounts(in);
            Map<String, ClassWatch.Closed> closed = new LinkedHashMap<>();
            int watches = count(in, MAX_WATCHES);
            for (int w = 0; w < watches; w++) {
                String id = in.readUTF();
                int bits = in.readInt();
                boolean[] shut = new boolean[ProbabilityBins.COUNT];
                for (int j = 0; j < shut.length; j++) {
                    shut[j] = (bits & 1 << j) != 0;
                }
                closed.put(id, new ClassWatch.Closed(shut, readCounts(in), readCounts(in)));
            }
            pools.put(name, new HitEvidence.SavedPool(right, wrong, closed));
        }
    }

    private static void writeEntries(DataOutputStream out, Map<String, HitEvidence.SavedEntry> entries)
            throws IOException {
        out.writeInt(entries.size());
        for (Map.Entry<String, HitEvidence.SavedEntry> e : entries.entrySet()) {
            HitEvidence.SavedEntry saved = e.getValue();
            out.writeUTF(e.getKey());
            out.writeBoolean(saved.demoted());
            out.writeByte(saved.similarity().length);
            for (int i = 0; i < saved.similarity().length; i++) {
                out.writeFloat(saved.similarity()[i]);
                out.writeBoolean(saved.right()[i]);
            }
        }
    }

    private static void readEntries(DataInputStream in, Map<String, HitEvidence.SavedEntry> entries, int max)
            throws IOException {
        int entryCount = count(in, max);
        for (int e = 0; e < entryCount; e++) {
            String key = in.readUTF();
            boolean demoted = in.readBoolean();
            int n = in.readUnsignedByte();
            if (n > HitEvidence.PER_ENTRY) {
                throw new IOException("an entry with " + n + " verdicts, more than are kept");
            }
            float[] similarity = new float[n];
            boolean[] right = new boolean[n];
            for (int i = 0; i < n; i++) {
                similarity[i] = in.readFloat();
                right[i] = in.readBoolean();
            }
            entries.put(key, new HitEvidence.SavedEntry(similarity, right, demoted));
        }
    }

    private static void writeLongs(DataOutputStream out, long[] values) throws IOException {
        for (long v : values) {
            out.writeLong(v);
        }
    }

    private static long[] readCounts(DataInputStream in) throws IOException {
        long[] values = new long[ProbabilityBins.COUNT];
        for (int i = 0; i < values.length; i++) {
            values[i] = in.readLong();
            if (values[i] < 0) {
                throw new IOException("a negative count");
            }
        }
        return values;
    }

    private static int count(DataInputStream in, int max) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new IOException("a count of " + n + " where at most " + max + " fit");
        }
        return n;
    }
}
