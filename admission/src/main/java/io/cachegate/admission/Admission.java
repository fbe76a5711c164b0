package io.cachegate.admission;

import java.time.Duration;
import java.util.Objects;

/** The answer to {@link AdmissionController#offer}: admitted now, queued, or rejected (an expected outcome, not an exception). */
public sealed interface Admission permits Admission.Admitted, Admission.Queued, Admission.Rejected {

    static Rejected rejected(RejectReason reason, Duration retryAfter, String message) {
        return new Rejected(reason, retryAfter, message);
    }

    /**
     * Capacity is reserved: send the request, then {@link AdmissionLease#release()} when it has finished.
     *
     * @param degrade true when the pool is overloaded and the class may degrade: use the route's fallback model
     * @param waited time spent in the queue, zero when admitted at once
     */
    record Admitted(AdmissionLease lease, boolean degrade, Duration waited) implements Admission {
        public Admitted {
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(waited, "waited");
        }
    }

    /** Waiting for capacity: {@link Ticket#outcome()} completes with {@link Admitted} or {@link Rejected}. */
    record Queued(Ticket ticket) implements Admission {
        public Queued {
            Objects.requireNonNull(ticket, "ticket");
        }
    }

    /**
     * Not admitted.
     *
     * @param retryAfter whole seconds, at least one, for the Retry-After header; zero only for {@link RejectReason#CANCELLED}
     * @param message for the response body and logs; never holds prompts, keys or user ids
     */
    record Rejected(RejectReason reason, Duration retryAfter, String message) implements Admission {
        public Rejected {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(retryAfter, "retryAfter");
            Objects.requireNonNull(message, "message");
        }

        /** The Retry-After header value. */
        public long retryAfterSeconds() {
            return retryAfter.toSeconds();
        }
    }
}
