package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FrontDoorTest {

    private static HttpRequest request(HttpVersion version, String uri, String... headers) {
        HttpRequest request = new DefaultHttpRequest(version, HttpMethod.POST, uri);
        for (int i = 0; i < headers.length; i += 2) {
            request.headers().add(headers[i], headers[i + 1]);
        }
        return request;
    }

    private static String problem(String... headers) {
        return FrontDoor.problem(request(HttpVersion.HTTP_1_1, "/v1/chat/completions", headers));
    }

    @Test
    void anOrdinaryHead_hasNoProblem() {
        assertThat(problem("Host", "gw:8080", "Content-Type", "application/json", "Authorization", "Bearer k",
                "Transfer-Encoding", "chunked", "X-Request-Id", "r1")).isNull();
        assertThat(FrontDoor.problem(request(HttpVersion.HTTP_1_0, "/v1/models"))).as("HTTP/1.0 needs no Host").isNull();
    }

    @Test
    void transferEncoding_otherThanOneChunked_isRefused() {
        assertThat(problem("Host", "a", "Transfer-Encoding", "Chunked")).isNull();
        assertThat(problem("Host", "a", "Transfer-Encoding", "gzip")).contains("Transfer-Encoding");
        assertThat(problem("Host", "a", "Transfer-Encoding", "chunked", "transfer-encoding", "chunked"))
                .contains("Transfer-Encoding");
    }

    @Test
    void host_missingRepeatedOrMalformed_isRefused() {
        assertThat(problem()).isEqualTo("Missing Host header");
        assertThat(problem("Host", "a", "HOST", "b")).isEqualTo("More than one Host header");
        assertThat(problem("Host", "a b")).contains("not a host name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Authorization", "content-type", "X-Request-Id", "x-cache-context", "X-Cache-Threshold"})
    void aSingleValuedHeader_twice_isRefused_byItsName(String name) {
        assertThat(problem("Host", "a", name, "one", name.toUpperCase(java.util.Locale.ROOT), "two"))
                .startsWith("More than one ").contains(name.toLowerCase(java.util.Locale.ROOT));
    }

    @Test
    void twoRepeatedHeaders_theFirstInTheCheckOrderIsNamed() {
        assertThat(problem("Host", "a", "Content-Type", "x", "Content-Type", "y", "Authorization", "1",
                "Authorization", "2")).isEqualTo("More than one authorization header: it takes one value");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/./chat", "/v1/../admin", "/v1/%2e%2E/admin", "/v1/%2E", "/.."})
    void dotSegments_areRefused(String uri) {
        assertThat(FrontDoor.hasDotSegment(uri)).isTrue();
        assertThat(FrontDoor.problem(request(HttpVersion.HTTP_1_1, uri, "Host", "a"))).contains("Dot segments");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions", "/v1/models/llama-3.1-8b", "/v1/a%20b", "/v1/x?next=../y",
            "/v1/.well-known", "/v1/x#../y"})
    void otherPaths_areNotDotSegments(String uri) {
        assertThat(FrontDoor.hasDotSegment(uri)).isFalse();
    }
}
