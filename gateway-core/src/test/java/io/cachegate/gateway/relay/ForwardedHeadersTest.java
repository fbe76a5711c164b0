package io.cachegate.gateway.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

class ForwardedHeadersTest {

    @Test
    void copyRequestHeaders_dropsHopByHopAndOwnHeaders() {
        HttpHeaders from = new DefaultHttpHeaders()
                .add("Connection", "keep-alive")
                .add("Keep-Alive", "timeout=5")
                .add("Proxy-Authorization", "Basic x")
                .add("Proxy-Connection", "keep-alive")
                .add("TE", "trailers")
                .add("Trailer", "X-T")
                .add("Transfer-Encoding", "chunked")
                .add("Upgrade", "h2c")
                .add("Host", "client.example")
                .add("Content-Length", "12")
                .add("Expect", "100-continue")
                .add("Content-Type", "application/json")
                .add("Accept", "text/event-stream")
                .add("X-Custom", "1");
        HttpHeaders to = new DefaultHttpHeaders();
        ForwardedHeaders.copyRequestHeaders(from, to, false);
        assertThat(to.names()).containsExactlyInAnyOrder("content-type", "accept", "x-custom");
    }

    @Test
    void copyRequestHeaders_dropsHeadersNamedByConnection() {
        HttpHeaders from = new DefaultHttpHeaders()
                .add("Connection", "close, X-Secret")
                .add("Connection", "x-other")
                .add("X-Secret", "s")
                .add("x-other", "o")
                .add("X-Kept", "k");
        HttpHeaders to = new DefaultHttpHeaders();
        ForwardedHeaders.copyRequestHeaders(from, to, false);
        assertThat(to.names()).containsExactly("x-kept");
    }

    @Test
    void copyRequestHeaders_authorization_droppedOnlyWhenAsked() {
        HttpHeaders from = new DefaultHttpHeaders().add("Authorization", "Bearer k1");
        HttpHeaders kept = new DefaultHttpHeaders();
        ForwardedHeaders.copyRequestHeaders(from, kept, false);
        assertThat(kept.get("authorization")).isEqualTo("Bearer k1");
        HttpHeaders dropped = new DefaultHttpHeaders();
        ForwardedHeaders.copyRequestHeaders(from, dropped, true);
        assertThat(dropped.contains("authorization")).isFalse();
    }

    @Test
    void copyRequestHeaders_repeatedHeaders_allCopied() {
        HttpHeaders from = new DefaultHttpHeaders().add("X-Tag", "a").add("X-Tag", "b");
        HttpHeaders to = new DefaultHttpHeaders();
        ForwardedHeaders.copyRequestHeaders(from, to, false);
        assertThat(to.getAll("x-tag")).containsExactly("a", "b");
    }

    @Test
    void copyResponseHeaders_keepsFramingDropsHopByHop() {
        HttpHeaders from = new DefaultHttpHeaders()
                .add("Transfer-Encoding", "chunked")
                .add("Connection", "keep-alive, X-Hop")
                .add("X-Hop", "1")
                .add("Keep-Alive", "timeout=5")
                .add("Content-Type", "text/event-stream")
                .add("Upgrade", "h2c");
        HttpHeaders to = new DefaultHttpHeaders();
        ForwardedHeaders.copyResponseHeaders(from, to);
        assertThat(to.names()).containsExactlyInAnyOrder("transfer-encoding", "content-type");
    }

    @Test
    void copyResponseHeaders_dropsTheBackendsOwnAndTheAccountsLimits() {
        HttpHeaders from = new DefaultHttpHeaders()
                .add("Server", "uvicorn")
                .add("Date", "Sat, 05 Dec 2026 04:00:00 GMT")
                .add("X-RateLimit-Limit-Requests", "10000")
                .add("x-ratelimit-remaining-tokens", "199000")
                .add("openai-organization", "acme-prod")
                .add("openai-project", "proj_1")
                .add("Set-Cookie", "__cf_bm=abc; path=/")
                .add("alt-svc", "h3=\":443\"")
                .add("Strict-Transport-Security", "max-age=31536000")
                .add("Content-Type", "application/json")
                .add("openai-processing-ms", "120");
        HttpHeaders to = new DefaultHttpHeaders();
        ForwardedHeaders.copyResponseHeaders(from, to);
        assertThat(to.names()).containsExactlyInAnyOrder("content-type", "openai-processing-ms");
    }
}
