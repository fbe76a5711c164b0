package io.cachegate.gateway.exchange;

import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stages of the request path in order, each one's {@link Stage.Next} built once so that passing an exchange
 * along allocates nothing. The chain stamps each stage's entry and exit on the exchange's record, and parks a
 * stage that cannot act tentatively while a decision is pending ({@link Stage}'s rule). A client error a stage
 * throws is answered here; a bug becomes a 500 (or, once the answer has started, a closed connection), never a
 * stack trace to the client.
 */
public final class StageChain {

    private static final Logger log = LoggerFactory.getLogger(StageChain.class);

    private final Stage.Next first;
    private final String[] names;
    private final String[] spanNames;

    public StageChain(List<Stage> stages) {
        this.names = new String[stages.size()];
        this.spanNames = new String[stages.size()];
        Stage.Next next = StageChain::unanswered;
        for (int i = stages.size() - 1; i >= 0; i--) {
            names[i] = stages.get(i).name();
            spanNames[i] = stages.get(i).spanName();
            next = link(i, stages.get(i), next);
        }
        this.first = next;
    }

    public static StageChain of(Stage... stages) {
        return new StageChain(List.of(stages));
    }

    /** The stages' names in order, as the metrics label them. */
    public List<String> names() {
        return List.of(names);
    }

    /** Takes {@code x} through the chain from the first stage. */
    public void start(Exchange x) {
        x.record().stages(new StageStamps(names, spanNames));
        first.proceed(x);
    }

    private static Stage.Next link(int index, Stage stage, Stage.Next after) {
        Stage.Next leave = x -> {
            x.record().stages().leave(index, x.ticker().nanos());
            after.proceed(x);
        };
        boolean tentative = stage.tentative();
        return x -> {
            if (x.isDone()) {
                return; // the client left while the previous stage was waiting
            }
            StageStamps stamps = x.record().stages();
            stamps.enter(index, x.ticker());
            if (!tentative && Speculation.pending(x)) {
                Speculation.afterDecision(x, () -> run(stage, x, leave)); // a hit drops it; a miss runs it
            } else {
                run(stage, x, leave);
            }
            stamps.returned(index);
        };
    }

    private static void run(Stage stage, Exchange x, Stage.Next leave) {
        try {
            stage.handle(x, leave);
        } catch (ApiException e) {
            x.fail(e.kind(), e.getMessage(), e.param());
        } catch (RuntimeException e) {
            log.warn("request {}: unexpected failure in {}", x.requestId(), stage.getClass().getSimpleName(), e);
            x.failUnexpectedly();
        }
    }

    private static void unanswered(Exchange x) {
        log.warn("request {}: no stage answered it", x.requestId());
        x.fail(ErrorKind.INTERNAL, "The gateway failed to handle the request", null);
    }
}
