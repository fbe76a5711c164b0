package io.cachegate.gateway.cache.embeddings;

import java.util.Arrays;

/**
 * Shares a batch's token count among its items. A backend reports one {@code prompt_tokens} for a whole batch;
 * each stored item needs its own, so that a later batch made of it reports a sum. The shares follow the items'
 * weights and always add up to the total (largest remainders), so an answer stored and then served whole from the
 * cache reports the backend's own count.
 */
final class TokenShares {

    private TokenShares() {
    }

    static int[] split(int total, int[] weights) {
        int[] shares = new int[weights.length];
        if (weights.length == 0 || total <= 0) {
            return shares;
        }
        long weightSum = 0;
        for (int w : weights) {
            weightSum += Math.max(1, w);
        }
        long[] remainders = new long[weights.length];
        int given = 0;
        for (int i = 0; i < weights.length; i++) {
            long exact = (long) total * Math.max(1, weights[i]);
            shares[i] = (int) (exact / weightSum);
            remainders[i] = exact % weightSum;
            given += shares[i];
        }
        // The tokens the floors left over (fewer than the items) go one each to the largest remainders, the
        // earlier item first on a tie.
        Integer[] order = new Integer[weights.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> remainders[a] != remainders[b]
                ? Long.compare(remainders[b], remainders[a]) : Integer.compare(a, b));
        for (int k = 0; k < total - given; k++) {
            shares[order[k]]++;
        }
        return shares;
    }
}
