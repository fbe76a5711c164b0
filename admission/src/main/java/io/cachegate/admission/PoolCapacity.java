package io.cachegate.admission;

import java.util.Optional;

/**
 * The capacity of one replica: at most {@code maxConcurrency} requests and {@code maxInflightTokens}
 * tokens in flight; a request is granted only when both allow it. A request larger than the whole
 * token budget is granted when the replica is idle, so that it runs alone instead of never. Thread-safe.
 */
public final class PoolCapacity implements CapacityGate {

    private final int maxConcurrency;
    private final long maxInflightTokens;
    private int inflightRequests;
    private long inflightTokens;

    public PoolCapacity(int maxConcurrency, long maxInflightTokens) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1, was " + maxConcurrency);
        }
        if (maxInflightTokens < 1) {
            throw new IllegalArgumentException("maxInflightTokens must be at least 1, was " + maxInflightTokens);
        }
        this.maxConcurrency = maxConcurrency;
        this.maxInflightTokens = maxInflightTokens;
    }

    @Override
    public synchronized Optional<Lease> tryAcquire(AdmissionRequest request) {
        long tokens = request.tokens();
        boolean fits = inflightRequests == 0 || inflightTokens + tokens <= maxInflightTokens;
        if (inflightRequests >= maxConcurrency || !fits) {
            return Optional.empty();
        }
        inflightRequests++;
        inflightTokens += tokens;
        return Optional.of(new Reservation(tokens));
    }

    public synchronized int inflightRequests() {
        return inflightRequests;
    }

    public synchronized long inflightTokens() {
        return inflightTokens;
    }

    public int maxConcurrency() {
        return maxConcurrency;
    }

    public long maxInflightTokens() {
        return maxInflightTokens;
    }

    private synchronized void free(long tokens) {
        inflightRequests--;
        inflightTokens -= tokens;
    }

    private final class Reservation implements Lease {

        private final long tokens;
        private boolean released;

        Reservation(long tokens) {
            this.tokens = tokens;
        }

        @Override
        public long tokens() {
            return tokens;
        }

        @Override
        public void release() {
            synchronized (PoolCapacity.this) {
                if (released) {
                    return;
                }
                released = true;
                free(tokens);
            }
        }
    }
}
