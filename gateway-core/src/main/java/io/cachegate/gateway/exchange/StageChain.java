package io.cachegate.gateway.exchange;

import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stages of the request path in order, each one's {@link Stage.Next} built once so that passing an exchange
 * along allocates nothing. A client error a stage throws is answered here; a bug becomes a 500 (or, once the
 * answer has started, a closed connection), never a stack trace to the client.
 */
public final class StageChain {

    private static final Logger log = LoggerFactory.getLogger(StageChain.class);

    private final Stage.Next first;

    public StageChain(List<Stage> stages) {
        Stage.Next next = StageChain::unanswered;
        for (int i = stages.size() - 1; i >= 0; i--) {
            next = link(stages.get(i), next);
        }
        this.first = next;
    }

    public static StageChain of(Stage... stages) {
        return new StageChain(List.of(stages));
    }

    /** Takes {@code x} through the chain from the first stage. */
    public void start(Exchange x) {
        first.proceed(x);
    }

    private static Stage.Next link(Stage stage, Stage.Next after) {
        return x -> {
            if (x.isDone()) {
                return; // the client left while the previous stage was waiting
            }
            try {
                stage.handle(x, after);
            } catch (ApiException e) {
                x.fail(e.kind(), e.getMessage(), e.param());
            } catch (RuntimeException e) {
                log.warn("request {}: unexpected failure in {}", x.requestId(), stage.getClass().getSimpleName(), e);
                x.failUnexpectedly();
            }
        };
    }

    private static void unanswered(Exchange x) {
        log.warn("request {}: no stage answered it", x.requestId());
        x.fail(ErrorKind.INTERNAL, "The gateway failed to handle the request", null);
    }
}
