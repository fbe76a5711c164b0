package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.admission.RejectReason;
import org.junit.jupiter.api.Test;

class AdmissionStageTest {

    @Test
    void errorKind_hasTheStatusAdmissionGivesTheReason() {
        for (RejectReason reason : RejectReason.values()) {
            if (reason != RejectReason.CANCELLED) {
                assertThat(AdmissionStage.errorKind(reason).status()).as(reason.name()).isEqualTo(reason.httpStatus());
            }
        }
    }
}
