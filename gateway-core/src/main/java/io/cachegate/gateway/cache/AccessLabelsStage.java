package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.UserDigest;
import io.cachegate.config.AccessLabel;
import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.Stage;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Access labels: reads {@code X-Cache-Labels: hr,contracts} (the labels of the data the prompt depends on; several
 * fields are one list), refuses
 * a malformed list (400) or a label the request's API key does not hold (403, naming no entry), and leaves an
 * {@link EntryAccess} for the cache stages: the declared labels, the labels the key holds now, and the end user's
 * digest. Without API keys the header is only checked for syntax and its labels are recorded, not enforced.
 */
public final class AccessLabelsStage implements Stage {

    private final boolean enforced;

    public AccessLabelsStage(Policy policy) {
        this.enforced = policy.authRequired();
    }

    @Override
    public void handle(Exchange x, Next next) {
        // Every field counts (a client may add one per retrieved document): reading only the first would store an
        // answer under fewer labels than it depends on, and serve it to a key lacking the others.
        Set<String> declared = labels(x.listHeader(GatewayHeaders.X_CACHE_LABELS));
        if (enforced && !x.keyLabels().containsAll(declared)) {
            throw new ApiException(ErrorKind.LABEL_NOT_PERMITTED,
                    "X-Cache-Labels names a label this API key does not hold");
        }
        String user = x.parsed() == null ? UserDigest.NONE : UserDigest.ofRequest(x.parsed().body());
        x.set(EntryAccess.KEY, new EntryAccess(declared, Set.copyOf(x.keyLabels()), enforced, user));
        next.proceed(x);
    }

    /** Parses the header: comma-separated, trimmed, at most {@link AccessLabel#MAX_PER_REQUEST} valid labels. */
    static Set<String> labels(String header) {
        if (header == null || header.isBlank()) {
            return Set.of();
        }
        Set<String> labels = new LinkedHashSet<>();
        for (String raw : header.split(",", -1)) {
            String label = raw.trim();
            if (!AccessLabel.valid(label) || labels.size() == AccessLabel.MAX_PER_REQUEST) {
                throw new ApiException(ErrorKind.INVALID_REQUEST, "X-Cache-Labels takes at most "
                        + AccessLabel.MAX_PER_REQUEST + " comma-separated labels of letters, digits, _ . - (at most 64"
                        + " characters each), e.g. X-Cache-Labels: hr,contracts");
            }
            labels.add(label);
        }
        return Set.copyOf(labels);
    }
}
