package io.cachegate.gateway.exchange;

import java.util.Locale;

/**
 * One step of the request path. A stage either answers the exchange (writes a response and finishes it) or hands
 * it to the next stage, now or later (after a store lookup, an admission queue), always on the exchange's event
 * loop (see {@link Exchange#resume}). A stage keeps no per-request state in its fields: that lives in the
 * {@link Exchange}. Errors a client caused are thrown as {@code ApiException} and answered by the chain.
 *
 * <p>A stage states what it learned as typed facts on the exchange's {@link ExchangeRecord} and nothing else: the
 * chain stamps when it entered and left each stage, and the metrics, the trace, the access log and the status page
 * are observers of the finished record. A new stage is counted, timed and traced without a line of its own.
 *
 * <p><b>The one rule of tentative steps.</b> While an earlier stage's decision is pending ({@link Speculation}: a
 * semantic lookup still deciding while the upstream call may start), the chain runs only the stages that say
 * they can act {@linkplain #tentative() tentatively}, and parks every other one until the decision: a hit drops
 * it, a miss runs it. A tentative stage does only what a hit can take back (registering the exchange, taking
 * idle capacity, starting the call, whose undo it leaves with {@link Speculation#onHit}) and parks the rest of
 * its own work with {@link Speculation#afterDecision}.
 */
@FunctionalInterface
public interface Stage {

    void handle(Exchange x, Next next);

    /**
     * The stage's name in the metrics ({@code stage} label): its class name in snake case without the
     * {@code Stage} suffix ({@code ExactCacheStage} is {@code exact_cache}).
     */
    default String name() {
        String simple = getClass().getSimpleName();
        if (simple.endsWith("Stage")) {
            simple = simple.substring(0, simple.length() - "Stage".length());
        }
        return simple.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    }

    /**
     * The name of the span a trace gives the stage when it held or answered the exchange (see
     * {@link StageStamps}); {@code stage.<name>} unless the stage's span has a documented name.
     */
    default String spanName() {
        return "stage." + name();
    }

    /**
     * Whether the stage can act while an earlier decision is pending (the class comment's rule); false, the
     * default, parks it in the chain until the decision.
     */
    default boolean tentative() {
        return false;
    }

    /** The rest of the chain after a stage. */
    @FunctionalInterface
    interface Next {
        void proceed(Exchange x);
    }
}
