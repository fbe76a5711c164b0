package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.BypassReason;
import io.cachegate.cache.exact.UserDigest;
import io.cachegate.cache.sensitive.Findings;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.config.ApiKey;
import io.cachegate.config.Policy;
import io.cachegate.config.SensitiveMode;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.request.BodyFacts;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sensitive data stays out of the cache: scans the text a cacheable request would leave in the cache (messages,
 * prompt, input, tool definitions: {@link CacheableText}) and applies the route's {@code cache.sensitive}.
 * {@code no_store}: a sensitive request becomes a BYPASS (no lookup, no store, no coalescing, nothing semantic).
 * {@code private}: its key is scoped to the end user (the {@code user} or {@code safety_identifier} field, else the
 * API key), so no one else can hit it, and it is never matched by meaning; without either it is {@code no_store}.
 * {@code allow}: cached, never semantic. A clean request carries an {@link AnswerScreen} to the capture, which
 * checks the answer the same way. Logs name the kinds found, never the text.
 */
public final class SensitiveDataStage implements Stage {

    private static final Logger log = LoggerFactory.getLogger(SensitiveDataStage.class);

    private final SensitiveDataDetector detector;
    private final boolean keysIdentifyUsers;
    private final CacheKeys keys;
    private final GatewayMetrics metrics;

    public SensitiveDataStage(Policy policy, CacheKeys keys, GatewayMetrics metrics) {
        this.detector = SensitiveDataDetector.with(policy.cache().sensitivePatterns());
        this.keysIdentifyUsers = policy.authRequired();
        this.keys = keys;
        this.metrics = metrics;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null) {
            next.proceed(x); // a BYPASS already: nothing of it is kept
            return;
        }
        SensitiveMode mode = x.route().route().cache().sensitive();
        if (mode == SensitiveMode.ALLOW && c.query() == null) {
            next.proceed(x); // cached as it is, and never in the semantic index: nothing to decide
            return;
        }
        BodyFacts facts = x.get(BodyFacts.KEY);
        Findings findings = facts != null && facts.parsed() == x.parsed()
                ? facts.derive(detector, Findings.class, () -> detector.scan(CacheableText.ofRequest(x.parsed())))
                : detector.scan(CacheableText.ofRequest(x.parsed()));
        if (!findings.any()) {
            x.set(AnswerScreen.KEY, new AnswerScreen(detector, mode == SensitiveMode.ALLOW, metrics, x.requestId()));
            next.proceed(x);
            return;
        }
        Optional<String> owner = mode == SensitiveMode.PRIVATE ? owner(x) : Optional.empty();
        if (log.isDebugEnabled()) {
            log.debug("request {}: sensitive data ({}); cache.sensitive {}{}", x.requestId(), findings.describe(),
                    mode.name().toLowerCase(Locale.ROOT),
                    mode == SensitiveMode.PRIVATE && owner.isEmpty() ? " without a user or API key: not stored" : "");
        }
        if (c.query() != null) {
            x.record().semanticLookup(LookupStatus.INELIGIBLE);
        }
        if (mode == SensitiveMode.ALLOW) {
            x.set(CacheableRequest.KEY, c.withoutSemantic());
        } else if (owner.isPresent()) {
            x.set(CacheableRequest.KEY, c.privateTo(owner.get(), keys));
        } else {
            x.record().bypass(BypassReason.SENSITIVE);
            x.set(CacheableRequest.KEY, null);
        }
        next.proceed(x);
    }

    /**
     * Who the answer is for: the request's {@code user} (or {@code safety_identifier}), else the API key when the
     * policy has keys. Hashed, so neither is kept in the clear. Empty when there is no one to scope it to.
     */
    private Optional<String> owner(Exchange x) {
        String user = UserDigest.ofRequest(x.parsed().body()); // the same digest the entry records, for purges
        if (!user.equals(UserDigest.NONE)) {
            return Optional.of("user " + user);
        }
        String authorization = x.header(HttpHeaderNames.AUTHORIZATION);
        if (keysIdentifyUsers && authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of("key " + ApiKey.hash(authorization.substring(7).trim()));
        }
        return Optional.empty();
    }
}
