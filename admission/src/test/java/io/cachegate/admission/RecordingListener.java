package io.cachegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Keeps every event as a short line, in order. */
final class RecordingListener implements AdmissionListener {

    final List<String> events = new ArrayList<>();
    final List<Duration> waits = new ArrayList<>();

    @Override
    public synchronized void onDispatched(String trafficClass, String tenant, Duration waited, boolean degraded) {
        events.add("dispatched " + trafficClass + (degraded ? " degraded" : ""));
        waits.add(waited);
    }

    @Override
    public synchronized void onRejected(String trafficClass, RejectReason reason) {
        events.add("rejected " + trafficClass + " " + reason);
    }

    @Override
    public synchronized void onOverloadChanged(boolean overloaded, Duration queueAge, long pendingTokens) {
        events.add(overloaded ? "overload on" : "overload off");
    }
}
