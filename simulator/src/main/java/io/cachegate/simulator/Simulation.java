package io.cachegate.simulator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.LongAdder;

/** What all connections of one simulator share: options, gate, faults, latency model and counters. */
final class Simulation {

    final SimulatorOptions options;
    final ConcurrencyGate gate;
    final FaultInjector faults;
    final LatencyModel latency;
    /** Trailing garbage after the JSON object is malformed JSON, as for vLLM. */
    final ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    final String modelsJson;

    final LongAdder requests = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder hung = new LongAdder();

    Simulation(SimulatorOptions options) {
        this.options = options;
        this.gate = new ConcurrencyGate(options.maxConcurrency(), options.maxQueue());
        this.faults = new FaultInjector(options.errorRate(), options.hangRate(), options.seed());
        this.latency = new LatencyModel(options.ttftMs(), options.prefillMsPerToken(), options.tpotMs());
        this.modelsJson = ModelList.json(options.models(), System.currentTimeMillis() / 1000);
    }

    SimulatorStats stats() {
        return new SimulatorStats(requests.sum(), completed.sum(), cancelled.sum(), errors.sum(), hung.sum(),
                gate.active(), gate.queued());
    }
}
