package io.cachegate.cache.exact;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One purge of the Redis store: a chain of SCAN (or SSCAN of a tag's or a user's set) pages, each unlinked before the
 * next is read. Failures complete {@link #result} exceptionally, as the store's {@code unavailable} turns them.
 */
final class RedisPurge {

    private static final int SCAN_BATCH = 1000;

    final CompletableFuture<Long> result = new CompletableFuture<>();
    private final RedisClusterAsyncCommands<String, byte[]> c;
    private final PurgeScope scope;
    private final ScanArgs scanArgs;
    private final EntryCodec codec;
    private final EntrySigner signer;
    private final Function<Throwable, StoreUnavailableException> unavailable;
    private long removed;

    RedisPurge(RedisClusterAsyncCommands<String, byte[]> c, PurgeScope scope, EntryCodec codec, EntrySigner signer,
               Function<Throwable, StoreUnavailableException> unavailable) {
        this.c = c;
        this.scope = scope;
        this.codec = codec;
        this.signer = signer;
        this.unavailable = unavailable;
        this.scanArgs = ScanArgs.Builder.matches(RedisKeys.scanPattern(scope)).limit(SCAN_BATCH);
    }

    void scan(ScanCursor cursor) {
        c.scan(cursor, scanArgs).whenComplete((page, error) -> {
            if (error != null) {
                result.completeExceptionally(unavailable.apply(error));
                return;
            }
            List<String> entries = new ArrayList<>();
            List<String> others = new ArrayList<>();
            for (String key : page.getKeys()) {
                if (RedisKeys.inScope(scope, key)) {
                    entries.add(key);
                } else if (scope.all()) {
                    others.add(key); // tag sets and anything else of ours
                }
            }
            if (!others.isEmpty()) {
                c.unlink(others.toArray(String[]::new));
            }
            unlink(entries).whenComplete((n, e) -> next(page, n, e, () -> scan(page)));
        });
    }

    void scanTag(ScanCursor cursor) {
        String tagKey = RedisKeys.tagKey(scope.tag().orElseThrow());
        boolean narrowed = scope.tenant().isPresent() || scope.modelVersion().isPresent();
        c.sscan(tagKey, cursor, ScanArgs.Builder.limit(SCAN_BATCH)).whenComplete((page, error) -> {
            if (error != null) {
                result.completeExceptionally(unavailable.apply(error));
                return;
            }
            List<String> members = new ArrayList<>();
            List<byte[]> raw = new ArrayList<>();
            for (byte[] m : page.getValues()) {
                String key = new String(m, StandardCharsets.UTF_8);
                if (RedisKeys.inScope(scope, key)) {
                    members.add(key);
                    raw.add(m);
                }
            }
            if (narrowed && !raw.isEmpty()) {
                // The set lives on for the tag's other entries; only the purged ones leave it.
                c.srem(tagKey, raw.toArray(byte[][]::new));
            }
            unlink(members).whenComplete((n, e) -> next(page, n, e, () -> {
                if (!page.isFinished()) {
                    scanTag(page);
                }
            }));
            if (page.isFinished() && !narrowed) {
                c.unlink(tagKey);
            }
        });
    }

    /**
     * A user purge: SSCAN the user's set, and of its members (entries of the scope's tenant and model version)
     * unlink those still written for that user. A member since overwritten by another user's answer (same
     * key) is left, so the count is that user's entries; one no longer readable (damaged, signed with another
     * key) goes too, since it can never be served.
     */
    void scanUser(ScanCursor cursor) {
        String user = scope.user().orElseThrow();
        String setKey = RedisKeys.userKey(user);
        boolean narrowed = scope.tenant().isPresent() || scope.modelVersion().isPresent();
        c.sscan(setKey, cursor, ScanArgs.Builder.limit(SCAN_BATCH)).whenComplete((page, error) -> {
            if (error != null) {
                result.completeExceptionally(unavailable.apply(error));
                return;
            }
            List<String> members = new ArrayList<>();
            List<CompletableFuture<byte[]>> values = new ArrayList<>();
            for (byte[] m : page.getValues()) {
                String key = new String(m, StandardCharsets.UTF_8);
                if (RedisKeys.inScope(scope, key)) {
                    members.add(key);
                    values.add(c.get(key).toCompletableFuture());
                }
            }
            CompletableFuture.allOf(values.toArray(CompletableFuture<?>[]::new)).thenCompose(v -> {
                List<String> theirs = new ArrayList<>();
                for (int i = 0; i < members.size(); i++) {
                    byte[] value = values.get(i).join(); // complete: allOf has completed
                    if (value != null && writtenFor(members.get(i), value, user)) {
                        theirs.add(members.get(i));
                    }
                }
                if (narrowed && !members.isEmpty()) {
                    c.srem(setKey, members.stream().map(k -> k.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new));
                }
                return unlink(theirs);
            }).whenComplete((n, e) -> next(page, n, e, () -> {
                if (!page.isFinished()) {
                    scanUser(page);
                }
            }));
            if (page.isFinished() && !narrowed) {
                c.unlink(setKey);
            }
        });
    }

    private boolean writtenFor(String redisKey, byte[] value, String user) {
        try {
            return codec.decode(signer.verify(redisKey, value)).userDigest().equals(user);
        } catch (CorruptEntryException e) {
            return true;
        }
    }

    private CompletableFuture<Long> unlink(List<String> keys) {
        return keys.isEmpty() ? CompletableFuture.completedFuture(0L)
                : c.unlink(keys.toArray(String[]::new)).toCompletableFuture();
    }

    private void next(ScanCursor page, Long unlinked, Throwable error, Runnable more) {
        if (error != null) {
            result.completeExceptionally(unavailable.apply(error));
            return;
        }
        removed += unlinked;
        if (page.isFinished()) {
            result.complete(removed);
        } else {
            more.run();
        }
    }
}
