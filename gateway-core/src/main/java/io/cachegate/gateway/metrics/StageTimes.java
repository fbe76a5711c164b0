package io.cachegate.gateway.metrics;

import io.cachegate.gateway.exchange.StageStamps;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.FastThreadLocal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The time requests spend in each stage of the request path ({@code cachegate.stage.duration}, count and sum),
 * counted by each thread in counters of its own and summed when scraped. Every request passes every stage, so two
 * shared adders a stage cost ~1% of a cached answer's CPU (the event loops writing the same cells, and a map lookup
 * per request for the chain's meters); a thread now adds plain numbers to the counters of the chain it saw last.
 */
final class StageTimes {

    private final MeterRegistry registry;
    /** Each stage's meter by its name: a reload's new chain has the same stages, and so the same meters. */
    private final ConcurrentMap<String, StageTime> meters = new ConcurrentHashMap<>();
    private final FastThreadLocal<ThreadCells> threads = new FastThreadLocal<>() {
        @Override
        protected ThreadCells initialValue() {
            return new ThreadCells();
        }
    };

    StageTimes(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Adds the time of each stage the exchange went through. */
    void add(StageStamps stages) {
        Cell[] cells = threads.get().cells(stages, this);
        for (int i = 0; i < cells.length; i++) {
            if (stages.timed(i)) {
                cells[i].add(stages.elapsedNanos(i));
            }
        }
    }

    private Cell newCell(String stage) {
        return meters.computeIfAbsent(stage, this::register).newCell();
    }

    private StageTime register(String stage) {
        StageTime time = new StageTime();
        FunctionTimer.builder("cachegate.stage.duration", time, StageTime::count, StageTime::nanos,
                        TimeUnit.NANOSECONDS)
                .description("Time requests spent in each stage of the request path, from entering it to passing the "
                        + "request on or answering it")
                .tag("stage", stage).register(registry);
        return time;
    }

    /** One thread's counters: every stage's by name, and those of the chain it saw last by the stages' places. */
    private static final class ThreadCells {
        private final Map<String, Cell> byName = new HashMap<>();
        private Object chain;
        private Cell[] byPlace;

        Cell[] cells(StageStamps stages, StageTimes times) {
            if (stages.chain() != chain) { // a reload's chain; for a while, old and new ones alternate
                Cell[] cells = new Cell[stages.size()];
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = byName.computeIfAbsent(stages.name(i), times::newCell);
                }
                chain = stages.chain();
                byPlace = cells;
            }
            return byPlace;
        }
    }

    /** One stage's meter: the sum of every thread's counters for it. */
    private static final class StageTime {
        private final List<Cell> cells = new CopyOnWriteArrayList<>();

        Cell newCell() {
            Cell cell = new Cell();
            cells.add(cell);
            return cell;
        }

        long count() {
            long sum = 0;
            for (Cell c : cells) {
                sum += c.count();
            }
            return sum;
        }

        double nanos() {
            long sum = 0;
            for (Cell c : cells) {
                sum += c.nanos();
            }
            return sum;
        }
    }

    /**
     * One thread's count and time of one stage: written by that thread only, read by a scrape on another. Opaque
     * access makes each write whole and visible without the fence a volatile write would cost.
     */
    private static final class Cell {
        private static final VarHandle COUNT;
        private static final VarHandle NANOS;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                COUNT = lookup.findVarHandle(Cell.class, "count", long.class);
                NANOS = lookup.findVarHandle(Cell.class, "nanos", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private long count;
        private long nanos;

        void add(long elapsed) {
            COUNT.setOpaque(this, count + 1);
            NANOS.setOpaque(this, nanos + elapsed);
        }

        long count() {
            return (long) COUNT.getOpaque(this);
        }

        long nanos() {
            return (long) NANOS.getOpaque(this);
        }
    }
}
