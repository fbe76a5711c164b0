package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.xCache;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * What a client sees while Redis fails over under it: requests sent one after another, round robin over a few
 * cached ones, from the moment the master is killed until the watched request is a hit again.
 *
 * @param requests sent after the kill
 * @param hits answered from the cache
 * @param bypasses answered with {@code X-Cache: BYPASS} (the store was unreachable; the backend answered)
 * @param misses answered by the backend as misses (the store answered "absent")
 * @param errors anything but a 200 (must be 0: the cache fails open)
 * @param hitsResumedMillis from the kill until the watched request was a hit again
 */
record FailoverLoad(int requests, int hits, int bypasses, int misses, int errors, long hitsResumedMillis) {

    /** Runs {@code kill}, then requests until {@code watched}'s body is a hit again or {@code timeout} passes. */
    static FailoverLoad drive(Gateway gw, List<String[]> calls, int watched, Runnable kill, Duration timeout) {
        int requests = 0;
        int hits = 0;
        int bypasses = 0;
        int misses = 0;
        int errors = 0;
        long start = System.nanoTime();
        kill.run();
        long deadline = start + timeout.toNanos();
        long resumed = -1;
        for (int i = 0; resumed < 0 && System.nanoTime() < deadline; i++) {
            int which = i % calls.size();
            String[] call = calls.get(which);
            requests++;
            try {
                HttpResponse<String> response = RawHttp.post(gw.port(), CacheCalls.CHAT, call[1],
                        "Authorization", "Bearer " + call[0]);
                if (response.statusCode() != 200) {
                    errors++;
                    continue;
                }
                switch (xCache(response)) {
                    case "HIT" -> {
                        hits++;
                        if (which == watched) {
                            resumed = System.nanoTime() - start;
                        }
                    }
                    case "BYPASS" -> bypasses++;
                    default -> misses++;
                }
            } catch (Exception e) {
                errors++;
            }
        }
        return new FailoverLoad(requests, hits, bypasses, misses, errors,
                resumed < 0 ? -1 : Duration.ofNanos(resumed).toMillis());
    }

    /** One line for the test log (docs/scale-out.md quotes these). */
    String report(String what) {
        return "failover report (" + what + "): requests=" + requests + " hits=" + hits + " bypasses=" + bypasses
                + " misses=" + misses + " errors=" + errors + " hits_resumed_after_ms=" + hitsResumedMillis;
    }
}
