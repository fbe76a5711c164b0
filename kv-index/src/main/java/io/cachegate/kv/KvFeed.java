package io.cachegate.kv;

import java.util.Objects;
import java.util.Optional;

/**
 * One replica's event stream as the subscriber follows it: where it publishes and replays, the blocks it feeds, and
 * what has been applied. The counters are written by the subscriber's thread only and read by metrics from any.
 *
 * @param replay the replica's replay (ROUTER) endpoint; empty when it has none (gaps are then only counted)
 */
public final class KvFeed {

    private final String backend;
    private final int replica;
    private final String publish;
    private final Optional<String> replay;
    private final ReplicaBlocks blocks;
    volatile long lastSeq = -1;
    /** A live batch newer than everything replayed has been applied: an older sequence number now means a restart. */
    volatile boolean caughtUp;
    /**
     * The replica's replay answered to its end at least once: the blocks are all it held then, even when that is none
     * (a replica that has stored nothing yet publishes no batch, but is no less known).
     */
    volatile boolean replayed;
    /** When a bootstrap or gap replay failed (replica not up yet), the subscriber's clock when to try again. */
    long retryReplayAtNanos = Long.MIN_VALUE;
    long replayBackoffNanos;
    /** The numbers and payload hashes of the last {@link #RECENT} batches applied, to know a copy from a restart. */
    private static final int RECENT = 4096;
    private final long[] recentSeqs = new long[RECENT];
    private final long[] recentHashes = new long[RECENT];
    /** The first sequence number of an open gap, to be replayed (and everything after it); -1 when none. */
    long refillFrom = 0;
    /** The subscriber's clock when this feed last delivered a live batch or was last asked to catch up. */
    long heardAtNanos = System.nanoTime();
    volatile long batches;
    volatile long gaps;
    volatile long gapsUnfilled;
    volatile long restarts;
    volatile long malformed;
    volatile long snapshots;
    /** The subscriber's clock before which no sibling snapshot is asked for again. */
    long snapshotAtNanos = Long.MIN_VALUE;

    public KvFeed(String backend, int replica, String publish, Optional<String> replay, ReplicaBlocks blocks) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.replica = replica;
        this.publish = Objects.requireNonNull(publish, "publish");
        this.replay = Objects.requireNonNull(replay, "replay");
        this.blocks = Objects.requireNonNull(blocks, "blocks");
    }

    /** Notes batch {@code seq} as applied with these bytes. Subscriber thread only. */
    void remember(long seq, byte[] payload) {
        int slot = (int) Math.floorMod(seq, (long) RECENT);
        recentSeqs[slot] = seq + 1; // + 1: an empty slot (0) never matches
        recentHashes[slot] = hash(payload);
    }

    /** Whether batch {@code seq} was applied with exactly these bytes (among the last {@link #RECENT}). */
    boolean applied(long seq, byte[] payload) {
        int slot = (int) Math.floorMod(seq, (long) RECENT);
        return recentSeqs[slot] == seq + 1 && recentHashes[slot] == hash(payload);
    }

    private static long hash(byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h = (h ^ (b & 0xFF)) * 0x100000001b3L;
        }
        return h;
    }

    public String backend() {
        return backend;
    }

    public int replica() {
        return replica;
    }

    public String publish() {
        return publish;
    }

    public Optional<String> replay() {
        return replay;
    }

    public ReplicaBlocks blocks() {
        return blocks;
    }

    /** The sequence number of the last batch applied; -1 before the first. */
    public long lastSeq() {
        return lastSeq;
    }

    /** Whether the replica's replay has answered to its end: what it holds is known, even when it is nothing. */
    public boolean replayed() {
        return replayed;
    }

    /** Batches applied (live and replayed). */
    public long batches() {
        return batches;
    }

    /** Sequence gaps seen in the live stream. */
    public long gaps() {
        return gaps;
    }

    /** Gaps the replay could not fill (no replay endpoint, or the batches were already out of its buffer). */
    public long gapsUnfilled() {
        return gapsUnfilled;
    }

    /** Times the publisher started its sequence again (a replica restart): its blocks were forgotten. */
    public long restarts() {
        return restarts;
    }

    /** Sibling snapshots loaded because the replay no longer held what this gateway missed. */
    public long snapshots() {
        return snapshots;
    }

    /** Batches that could not be decoded (skipped; counted, never fatal). */
    public long malformed() {
        return malformed;
    }
}
