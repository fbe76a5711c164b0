package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RejectReasonTest {

    @Test
    void httpStatus_earlyRejectionsAre429AndATimeoutIs503() {
        assertThat(RejectReason.QUEUE_FULL.httpStatus()).isEqualTo(429);
        assertThat(RejectReason.WAIT_TOO_LONG.httpStatus()).isEqualTo(429);
        assertThat(RejectReason.OVERLOAD_PAUSED.httpStatus()).isEqualTo(429);
        assertThat(RejectReason.QUEUE_TIMEOUT.httpStatus()).isEqualTo(503);
        assertThat(RejectReason.CANCELLED.httpStatus()).isEqualTo(499);
    }

    @Test
    void tag_isTheLowercaseName() {
        assertThat(RejectReason.OVERLOAD_PAUSED.tag()).isEqualTo("overload_paused");
    }
}
