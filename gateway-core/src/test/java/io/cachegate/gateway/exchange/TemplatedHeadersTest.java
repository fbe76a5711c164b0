package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplatedHeadersTest {

    private final HeaderBlock block = HeaderBlock.of(shared());

    private static Map<AsciiString, CharSequence> shared() {
        Map<AsciiString, CharSequence> shared = new LinkedHashMap<>();
        shared.put(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        shared.put(HttpHeaderNames.CONTENT_LENGTH, "42");
        return shared;
    }

    @Test
    void block_isEncodedOnce_asHttpLines() {
        assertThat(new String(block.encoded(), StandardCharsets.US_ASCII))
                .isEqualTo("content-type: application/json\r\ncontent-length: 42\r\n");
    }

    @Test
    void block_refusesAValueThatWouldSplitTheHead() {
        assertThatThrownBy(() -> HeaderBlock.of(Map.of(AsciiString.of("x-cache-origin-request-id"), "a\r\nx-evil: 1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ownHeaders_areReadAndWritten_withoutTouchingTheBlock() {
        TemplatedHeaders headers = new TemplatedHeaders(block, new DefaultHttpHeaders());
        headers.set("X-Request-Id", "r1").setInt("x-n", 3);
        headers.setAll(new DefaultHttpHeaders().set("x-ratelimit-remaining-requests", "9"));

        assertThat(headers.block()).isSameAs(block);
        assertThat(headers.own().names()).containsExactlyInAnyOrder("X-Request-Id", "x-n", "x-ratelimit-remaining-requests");
        assertThat(headers.get("x-request-id")).isEqualTo("r1");
        assertThat(headers.get("Content-Length")).isEqualTo("42");
        assertThat(headers.getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(42);
        assertThat(headers.contains(HttpHeaderNames.CONTENT_TYPE)).isTrue();
        assertThat(headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)).isFalse();
        assertThat(headers.isEmpty()).isFalse();
    }

    @Test
    void changingABlockHeader_copiesTheBlockIn_andLeavesTheBlockAsItWas() {
        TemplatedHeaders headers = new TemplatedHeaders(block, new DefaultHttpHeaders());
        headers.set("x-request-id", "r1");
        headers.remove(HttpHeaderNames.CONTENT_LENGTH);

        assertThat(headers.block()).isNull();
        assertThat(headers.own().names()).containsExactly("content-type", "x-request-id");
        assertThat(headers.get(HttpHeaderNames.CONTENT_LENGTH)).isNull();
        assertThat(new TemplatedHeaders(block, new DefaultHttpHeaders()).get(HttpHeaderNames.CONTENT_LENGTH))
                .as("the shared block").isEqualTo("42");
    }

    @Test
    void listingTheHeaders_seesAllOfThem_blockFirst() {
        TemplatedHeaders headers = new TemplatedHeaders(block, new DefaultHttpHeaders());
        headers.set("x-request-id", "r1");
        HttpHeaders copy = new DefaultHttpHeaders().set(headers);

        assertThat(copy.names()).containsExactly("content-type", "content-length", "x-request-id");
        assertThat(headers.size()).isEqualTo(3);
        assertThat(headers).isEqualTo(copy);
    }
}
