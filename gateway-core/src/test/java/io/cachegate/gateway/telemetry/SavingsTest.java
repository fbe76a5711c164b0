package io.cachegate.gateway.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.ModelPrice;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which price a model gets: the first whose name or glob matches, in file order. */
class SavingsTest {

    @Test
    void price_firstMatchInFileOrder_noneWithoutAMatch() {
        ModelPrice mini = new ModelPrice("gpt-4o-mini", 0.15, 0.6);
        ModelPrice family = new ModelPrice("gpt-4o*", 2.5, 10);
        Savings savings = new Savings(List.of(mini, family), new UpstreamLatency());
        assertThat(savings.price("gpt-4o-mini")).isEqualTo(mini);
        assertThat(savings.price("gpt-4o-2024-08-06")).isEqualTo(family);
        assertThat(savings.price("llama-3.1-8b")).isNull();
        assertThat(savings.price("")).isNull();
    }
}
