package io.cachegate.gateway.telemetry;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * How long each route's backend takes to answer, from its recent upstream answers: the median of the last
 * {@link #WINDOW} (a median, so one stuck generation does not inflate every hit's saving). A hit on the route
 * avoided about that much upstream time. Written and read from every event loop; one small lock per route.
 */
final class UpstreamLatency {

    static final int WINDOW = 128;
    /**
     * The median is re-computed after this many new answers, not on every read: a quarter of the window, so it
     * follows a change of the backend's speed within a window's answers. Sorting the window every 8 answers was
     * 2.5% of a proxied request's CPU (JFR, a proxying run).
     */
    private static final int REFRESH_EVERY = 32;
    /** Routes tracked at most; a route beyond it gets no estimate (route labels are bounded by the policy). */
    private static final int MAX_ROUTES = 4096;

    private final ConcurrentMap<String, Window> routes = new ConcurrentHashMap<>();

    /** A successful upstream answer on {@code route} took {@code nanos}, from sending to its last byte. */
    void answered(String route, long nanos) {
        Window window = routes.get(route);
        if (window == null) {
            if (routes.size() >= MAX_ROUTES) {
                return;
            }
            window = routes.computeIfAbsent(route, r -> new Window());
        }
        window.add(nanos);
    }

    /** The route's typical upstream time; 0 before it has answered once. */
    long estimateNanos(String route) {
        Window window = routes.get(route);
        return window == null ? 0 : window.median();
    }

    private static final class Window {
        private final long[] samples = new long[WINDOW];
        private final long[] sorted = new long[WINDOW];
        private int count;
        private int next;
        private int sinceRefresh;
        private long median;

        synchronized void add(long nanos) {
            samples[next] = nanos;
            next = (next + 1) % WINDOW;
            count = Math.min(count + 1, WINDOW);
            if (++sinceRefresh >= REFRESH_EVERY || count <= REFRESH_EVERY) {
                sinceRefresh = 0;
                System.arraycopy(samples, 0, sorted, 0, count);
                Arrays.sort(sorted, 0, count);
                median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
            }
        }

        synchronized long median() {
            return median;
        }
    }
}
