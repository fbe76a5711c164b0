package io.cachegate.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counters registered on first use and kept by name and tag values, so a request finds its counter with one map
 * lookup instead of building a meter id. Up to two tags, each with a bounded set of values.
 */
final class Counters {

    private final MeterRegistry registry;
    private final ConcurrentMap<Key, Counter> counters = new ConcurrentHashMap<>();

    Counters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A counter without tags. */
    Counter get(String name, String description) {
        return get(name, description, null, null, null, null);
    }

    Counter get(String name, String description, String tag, String value) {
        return get(name, description, tag, value, null, null);
    }

    Counter get(String name, String description, String tag1, String value1, String tag2, String value2) {
        Key key = new Key(name, value1, value2);
        Counter known = counters.get(key); // counted on requests: no function object unless the counter is new
        return known != null ? known : counters.computeIfAbsent(key, k -> {
            Counter.Builder b = Counter.builder(name).description(description);
            if (tag1 != null) {
                b.tag(tag1, value1);
            }
            if (tag2 != null) {
                b.tag(tag2, value2);
            }
            return b.register(registry);
        });
    }

    // A record key instead of a concatenated string: looked up on every request, built without copying text.
    private record Key(String name, String value1, String value2) {
    }
}
