package io.cachegate.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

/**
 * One gateway's index of a backend, for a sibling that cannot rebuild it from the replicas' replay (it started after
 * the replay buffer turned over, or lost events beyond it). msgpack: per replica its publish endpoint, the sequence
 * number of the last batch applied, the block size and every block as (engine hash, key, media).
 *
 * <p>Taken while the owner's subscriber keeps writing: the sequence number is read first, so the blocks may
 * include events after it, never miss one before it; the receiver then replays from that number on, and since
 * applying the same events again in order ends in the same state, it converges on the engine's.
 */
public final class KvSnapshot {

    private KvSnapshot() {
    }

    public static byte[] write(List<KvFeed> feeds) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(feeds.size());
            for (KvFeed f : feeds) {
                long seq = f.lastSeq();
                List<long[]> blocks = new ArrayList<>();
                f.blocks().forEach((hash, key, media) -> blocks.add(new long[] {hash, key, media}));
                p.packArrayHeader(4);
                p.packString(f.publish());
                p.packLong(seq);
                p.packInt(f.blocks().blockSize());
                p.packArrayHeader(blocks.size());
                for (long[] b : blocks) {
                    p.packArrayHeader(3).packLong(b[0]).packLong(b[1]).packInt((int) b[2]);
                }
            }
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Loads the part of {@code snapshot} about {@code feed}'s replica (matched by publish endpoint) unless it is
     * behind what the feed has applied: replaces its blocks and moves its sequence there. Returns the snapshot's
     * sequence number when it was taken; empty when it has nothing for the feed. Malformed input throws {@link
     * IllegalArgumentException}.
     */
    static Optional<Long> load(byte[] snapshot, KvFeed feed) {
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(snapshot)) {
            int replicas = u.unpackArrayHeader();
            for (int r = 0; r < replicas; r++) {
                if (u.unpackArrayHeader() != 4) {
                    throw new IllegalArgumentException("a replica of a KV snapshot has 4 fields");
                }
                String publish = u.unpackString();
                long seq = u.unpackLong();
                int blockSize = u.unpackInt();
                int blocks = u.unpackArrayHeader();
                // At the same sequence number the sibling's is still the better index: it was complete, ours not.
                boolean ours = publish.equals(feed.publish()) && seq >= feed.lastSeq;
                if (ours) {
                    feed.blocks().clear();
                }
                for (int i = 0; i < blocks; i++) {
                    u.unpackArrayHeader();
                    long hash = u.unpackLong();
                    long key = u.unpackLong();
                    int media = u.unpackInt();
                    if (ours) {
                        feed.blocks().restore(hash, key, media, blockSize);
                    }
                }
                if (ours) {
                    feed.lastSeq = seq;
                    return Optional.of(seq);
                }
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a KV snapshot: " + e.getMessage(), e);
        }
    }
}
