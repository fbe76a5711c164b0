package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.LuceneDocuments.CREATED;
import static io.cachegate.cache.semantic.LuceneDocuments.EXPIRES;
import static io.cachegate.cache.semantic.LuceneDocuments.KEY;
import static io.cachegate.cache.semantic.LuceneDocuments.META_DIMENSION;
import static io.cachegate.cache.semantic.LuceneDocuments.META_MODEL;
import static io.cachegate.cache.semantic.LuceneDocuments.META_SCHEMA;
import static io.cachegate.cache.semantic.LuceneDocuments.SCHEMA;
import static io.cachegate.cache.semantic.LuceneDocuments.SCOPE;
import static io.cachegate.cache.semantic.LuceneDocuments.VECTOR;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded index: Lucene on local disk, one {@link IndexWriter} and a near-real-time {@link SearcherManager};
 * vectors are stored without an HNSW graph unless {@link LuceneIndexOptions#graphs()}, and searched by
 * {@link ScopeSearch}. The scope is a pre-filter, so a search only ever sees one scope. An add is
 * searchable as soon as it completes: it is kept in {@link RecentEntries} (searched next to Lucene) until a lazy
 * refresh, at most every {@code recentRefreshInterval}, puts it in the searcher; deletes and purges complete once
 * a (coalesced) refresh makes them visible. Changes are committed every commit interval and on close, so the index
 * persists across restarts. Futures complete on the index's own threads.
 */
public final class LuceneVectorIndex implements VectorIndex {

    private static final Logger LOG = LoggerFactory.getLogger(LuceneVectorIndex.class);

    private final LuceneIndexOptions options;
    private final Directory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final RecentEntries recent;
    private final SegmentFacts facts = new SegmentFacts(EXPIRES, SCOPE, VECTOR);
    private final ResultReader results = new ResultReader();
    private final ExecutorService executor;
    private final ExecutorService searchHelpers;
    // Refreshes and commit ticks only: one periodic task and at most a few delayed refreshes (each request schedules
    // one only when none is due sooner), so its queue stays small.
    private final ScheduledExecutorService scheduler;
    private final CoalescedRefresh refreshes;
    private final long recentRefreshNanos;
    private final long evictionSlack;
    private final AtomicLong evictions = new AtomicLong();
    private final AtomicBoolean commitQueued = new AtomicBoolean();
    private volatile boolean closed;

    private LuceneVectorIndex(LuceneIndexOptions options, Directory directory, IndexWriter writer) throws IOException {
        this.options = options;
        this.directory = directory;
        this.writer = writer;
        this.searchers = new SearcherManager(writer, new WarmSearchers(facts));
        this.recent = new RecentEntries(options.recentCapacity());
        this.executor = IndexThreads.bounded("cachegate-lucene-index", options.threads(), options.queueCapacity());
        this.searchHelpers = IndexThreads.idleHelpers("cachegate-lucene-search",
                Runtime.getRuntime().availableProcessors() - 1);
        ScheduledThreadPoolExecutor ticks = new ScheduledThreadPoolExecutor(1, IndexThreads.daemon("cachegate-lucene-refresh"));
        ticks.setRemoveOnCancelPolicy(true);
        ticks.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.scheduler = ticks;
        this.refreshes = new CoalescedRefresh(ticks, options.refreshInterval().toNanos(), this::refreshSearcher);
        this.recentRefreshNanos = options.recentRefreshInterval().toNanos();
        // Evict a little below the bound so the sorted scan runs once per ~1% of adds, not on every add.
        this.evictionSlack = Math.max(1, options.maxEntries() / 100);
        long commitMillis = options.commitInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::commitInBackground, commitMillis, commitMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Opens (or creates) the index under {@code options.directory()}. Blocks on disk I/O: call it at start-up,
     * not on an event loop. An index left by another model id, dimension or schema is deleted and recreated:
     * its vectors live in another embedding space and can never match this model's queries, and a cache may
     * always be rebuilt (the answers themselves stay in the exact cache).
     */
    public static LuceneVectorIndex open(LuceneIndexOptions options) throws IOException {
        Files.createDirectories(options.directory());
        Directory directory = FSDirectory.open(options.directory());
        try {
            Map<String, String> wanted = Map.of(META_MODEL, options.modelId(),
                    META_DIMENSION, Integer.toString(options.dimension()), META_SCHEMA, SCHEMA);
            IndexWriterConfig.OpenMode mode = IndexWriterConfig.OpenMode.CREATE_OR_APPEND;
            if (DirectoryReader.indexExists(directory)) {
                Map<String, String> found = SegmentInfos.readLatestCommit(directory).getUserData();
                if (!options.modelId().equals(found.get(META_MODEL))
                        || !Integer.toString(options.dimension()).equals(found.get(META_DIMENSION))
                        || !LuceneDocuments.READABLE_SCHEMAS.contains(found.getOrDefault(META_SCHEMA, ""))) {
                    LOG.warn("Semantic index at {} was built for model {} (dimension {}, schema {}); "
                            + "recreating it for {} (dimension {}, schema {})", options.directory(),
                            found.get(META_MODEL), found.get(META_DIMENSION), found.get(META_SCHEMA),
                            options.modelId(), options.dimension(), SCHEMA);
                    mode = IndexWriterConfig.OpenMode.CREATE;
                }
            }
            IndexWriterConfig config = new IndexWriterConfig()
                    .setOpenMode(mode)
                    .setCodec(LuceneDocuments.codec(options.graphs()))
                    .setCommitOnClose(true)
                    // Larger flushes mean fewer, larger segments: fewer per-segment scans per query.
                    .setRAMBufferSizeMB(64);
            IndexWriter writer = new IndexWriter(directory, config);
            // An index of schema 1 is now marked 2: its next segments may lack graphs, which a schema-1 build
            // cannot read.
            writer.setLiveCommitData(wanted.entrySet());
            writer.commit();
            return new LuceneVectorIndex(options, directory, writer);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
    }

    @Override
    public String modelId() {
        return options.modelId();
    }

    @Override
    public int dimension() {
        return options.dimension();
    }

    /** How many entries were evicted because the index was full, since it was opened. */
    public long evictions() {
        return evictions.get();
    }

    /**
     * Completes once the entry is searchable: at once when {@link RecentEntries} takes it (a refresh follows within
     * the recent refresh interval, sooner once half of it is used), else after the next refresh.
     */
    @Override
    public CompletableFuture<Void> add(IndexEntry entry) {
        Vectors.check(entry.vectorUnsafe(), options.dimension());
        Document doc = LuceneDocuments.of(entry);
        return IndexThreads.submit(executor, () -> {
            writer.updateDocument(new Term(KEY, entry.entryKey()), doc);
            return recent.offer(entry);
        }).thenCompose(buffered -> {
            if (!buffered) {
                return refreshes.within(0);
            }
            refreshes.within(recent.size() * 2 >= options.recentCapacity() ? 0 : recentRefreshNanos);
            return CompletableFuture.completedFuture(null);
        });
    }

    @Override
    public CompletableFuture<List<Neighbour>> search(String scope, float[] vector, int k, long nowMillis,
                                                     ReadableLabels readable) {
        Vectors.check(vector, options.dimension());
        if (k <= 0) {
            throw new IllegalArgumentException("k must be positive, was " + k);
        }
        float[] query = vector.clone();
        return IndexThreads.submit(executor, () -> searchNow(scope, query, k, nowMillis, readable));
    }

    private List<Neighbour> searchNow(String scope, float[] vector, int k, long nowMillis, ReadableLabels readable)
            throws IOException {
        // The snapshot first: it holds every entry that the searcher acquired after it may lack.
        RecentEntries.Snapshot buffered = recent.snapshot();
        List<Neighbour> fromRecent = buffered.search(scope, vector, k, nowMillis, readable);
        Query unreadable = readable.unrestricted() ? null : LuceneDocuments.unreadable(readable.held());
        IndexSearcher searcher = searchers.acquire();
        try {
            List<ScoreDoc> top = new ScopeSearch(searcher, facts, VECTOR, options.exactSearchLimit(), searchHelpers)
                    .nearest(scope, vector, k, nowMillis, unreadable);
            List<Neighbour> fromLucene = new ArrayList<>(top.size());
            for (ScoreDoc hit : top) {
                fromLucene.add(results.neighbour(searcher, hit.doc, hit.score));
            }
            return RecentEntries.merge(buffered, fromRecent, fromLucene, k);
        } finally {
            searchers.release(searcher);
        }
    }

    @Override
    public CompletableFuture<Void> delete(String entryKey) {
        return IndexThreads.submit(executor, () -> {
            writer.deleteDocuments(new Term(KEY, entryKey));
            recent.remove(entryKey);
            return null;
        }).thenCompose(v -> refreshes.within(0));
    }

    @Override
    public CompletableFuture<Long> purge(IndexPurge purge) {
        return deleteMatching(LuceneDocuments.purgeQuery(purge), purge::matches);
    }

    @Override
    public CompletableFuture<Long> sweepExpired(long nowMillis) {
        return deleteMatching(LongField.newRangeQuery(EXPIRES, Long.MIN_VALUE, nowMillis), e -> e.expiredAt(nowMillis));
    }

    @Override
    public CompletableFuture<Long> size() {
        return IndexThreads.submit(executor, () -> {
            refreshSearcher();
            IndexSearcher searcher = searchers.acquire();
            try {
                return (long) searcher.getIndexReader().numDocs();
            } finally {
                searchers.release(searcher);
            }
        });
    }

    // Counts on a fresh searcher, then deletes by the same query: concurrent adds may make the count approximate.
    private CompletableFuture<Long> deleteMatching(Query query, Predicate<IndexEntry> matches) {
        return IndexThreads.submit(executor, () -> {
            refreshSearcher();
            IndexSearcher searcher = searchers.acquire();
            long count;
            try {
                count = searcher.count(query);
            } finally {
                searchers.release(searcher);
            }
            if (count > 0 || recent.size() > 0) {  // recent ones were added since the refresh above
                writer.deleteDocuments(query);
            }
            recent.removeEntries(matches);
            return count;
        }).thenCompose(count -> count == 0 ? CompletableFuture.completedFuture(0L) : refreshes.within(0).thenApply(v -> count));
    }

    /** Reopens the searcher on everything written so far, and again after evicting when over the bound. */
    private void refreshSearcher() throws IOException {
        reopen();
        if (evictIfFull()) {
            reopen();
        }
    }

    /** Reopens the searcher, then drops the recent entries it now holds. */
    private void reopen() throws IOException {
        long written = recent.lastSequence();
        searchers.maybeRefreshBlocking();
        recent.dropThrough(written);
    }

    /**
     * When over {@code maxEntries}, deletes the oldest entries down to slightly below it. They are found with a
     * top-n sort on {@code created_at} (doc values, with Lucene's numeric-sort skipping over the points index),
     * so no full scan of stored fields; entries created at the cut-off instant go together.
     */
    private boolean evictIfFull() throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            long live = searcher.getIndexReader().numDocs();
            if (live <= options.maxEntries()) {
                return false;
            }
            int excess = (int) Math.min(Integer.MAX_VALUE - 1, live - options.maxEntries() + evictionSlack);
            Sort oldestFirst = new Sort(LongField.newSortField(CREATED, false, SortedNumericSelector.Type.MIN));
            TopFieldDocs oldest = searcher.search(new MatchAllDocsQuery(), excess, oldestFirst);
            if (oldest.scoreDocs.length == 0) {
                return false;
            }
            long cutoff = (Long) ((FieldDoc) oldest.scoreDocs[oldest.scoreDocs.length - 1]).fields[0];
            Query victims = LongField.newRangeQuery(CREATED, Long.MIN_VALUE, cutoff);
            evictions.addAndGet(searcher.count(victims));
            writer.deleteDocuments(victims);
            recent.removeEntries(e -> e.createdAtMillis() <= cutoff);
            return true;
        } finally {
            searchers.release(searcher);
        }
    }

    private void commitInBackground() {
        if (closed || !writer.hasUncommittedChanges()) {
            return;
        }
        // Committing fsyncs: run it on the index threads, and skip this tick if they are saturated or still hold
        // the last tick's commit (behind a burst of adds, ticks would otherwise pile up in the queue).
        if (!commitQueued.compareAndSet(false, true)) {
            return;
        }
        IndexThreads.submit(executor, () -> {
            commitQueued.set(false);
            return closed ? 0L : writer.commit();
        }).whenComplete((seq, failure) -> {
            if (failure != null) {
                commitQueued.set(false);
            }
            if (failure != null && !(failure instanceof IndexUnavailableException)) {
                LOG.warn("Semantic index commit failed: {}", failure.toString());
            }
        });
    }

    /** Waits for queued work, commits and closes the index. Blocks: call it at shutdown. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            executor.shutdown();
            executor.awaitTermination(10, TimeUnit.SECONDS);
            searchHelpers.shutdown();
            scheduler.shutdown();  // a delayed refresh is dropped (one may be due in seconds): it runs below instead
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        refreshes.runNow();  // completes the futures waiting for a refresh
        try {
            searchers.close();
            writer.close();
            directory.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the semantic index at " + options.directory(), e);
        }
    }
}
