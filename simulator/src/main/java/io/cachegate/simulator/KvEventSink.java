package io.cachegate.simulator;

import java.util.List;

/** Where a {@link PrefixCache} hands the events of one change: the {@link KvEventPublisher}, or a test's recorder. */
interface KvEventSink {

    /** Takes one batch without blocking; false when it had to drop it. */
    boolean publish(List<KvEvent> events);
}
