package io.cachegate.gateway.telemetry.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The access log observer on exchanges prepared by the real front stages: the fields of a semantic hit, a
 * miss's usage read from its answer, a client's trace id, a client that left; and the text only when asked for,
 * redacted, read from the stored entry for a hit and from the captured answer (SSE included) for a miss.
 */
class AccessLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Exchanges exchanges = new Exchanges(Exchanges.MEMORY_CACHE_POLICY);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LineWriter writer = new LineWriter("access", new LineSink() {
        @Override
        public void write(byte[] line) {
            lines.add(new String(line, StandardCharsets.UTF_8));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }, 100, new SimpleMeterRegistry());

    @AfterEach
    void close() {
        exchanges.close();
    }

    private AccessLog log(boolean includeText) {
        return new AccessLog(writer, includeText, SensitiveDataDetector.builtIn(), exchanges.ticker());
    }

    private JsonNode onlyLine() throws Exception {
        writer.close(Duration.ofSeconds(10));
        assertThat(lines).hasSize(1);
        return JSON.readTree(lines.get(0));
    }

    /** The backend's answer, relayed in {@code pieces}. */
    private static void answer(Exchange x, String... pieces) {
        answer(x, Answer.Source.BACKEND, pieces);
    }

    private static void answer(Exchange x, Answer.Source from, String... pieces) {
        x.answer().head(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK), from);
        for (String piece : pieces) {
            x.answer().content(new DefaultHttpContent(Unpooled.wrappedBuffer(piece.getBytes(StandardCharsets.UTF_8))));
        }
        x.answer().end(LastHttpContent.EMPTY_LAST_CONTENT);
        Exchanges.written(x);
    }

    @Test
    void semanticHit_fieldsFromTheRecord_noText() throws Exception {
        AccessLog log = log(false);
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "what is the capital of secretland"),
                "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        log.started(x);
        x.record().hit("semantic", 0.934567, "origin-7", 1500, 12, 30, null);
        x.record().saved(42, 0.0012, 250_000_000L);
        x.xCache("HIT");

        log.finished(x, 200, 3_456_789);

        JsonNode line = onlyLine();
        assertThat(line.path("cache").asText()).isEqualTo("hit");
        assertThat(line.path("layer").asText()).isEqualTo("semantic");
        assertThat(line.path("similarity").asDouble()).isEqualTo(0.9346);
        assertThat(line.path("origin_request_id").asText()).isEqualTo("origin-7");
        assertThat(line.path("entry_age_ms").asLong()).isEqualTo(1500);
        assertThat(line.path("tokens_saved").asLong()).isEqualTo(42);
        assertThat(line.path("cost_saved").asDouble()).isEqualTo(0.0012);
        assertThat(line.path("latency_saved_ms").asDouble()).isEqualTo(250.0);
        assertThat(line.path("total_ms").asDouble()).isEqualTo(3.457);
        assertThat(line.path("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(line.path("time").asText()).isEqualTo("2023-11-14T22:13:20Z");
        assertThat(line.has("queue_wait_ms")).isFalse();
        assertThat(lines.get(0)).doesNotContain("secretland").doesNotContain("null");
    }

    @Test
    void traceIdSetByTheTracer_winsOverTheClientsHeader() throws Exception {
        AccessLog log = log(false);
        Exchange x = exchanges.chat(Exchanges.chatBody("m", "hi"),
                "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        x.record().traceId("0af7651916cd43dd8448eb211c80319c");

        log.finished(x, 200, 1);

        assertThat(onlyLine().path("trace_id").asText()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    }

    @Test
    void miss_usageFromTheAnswersTail_textOnlyWhenAsked() throws Exception {
        AccessLog log = log(false);
        Exchange x = exchanges.chat(Exchanges.chatBody("m", "hello"));
        log.started(x);
        answer(x, "{\"choices\":[{\"message\":{\"content\":\"hi there\"}}],",
                "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}");

        log.finished(x, 200, 1);

        JsonNode line = onlyLine();
        assertThat(line.path("prompt_tokens").asInt()).isEqualTo(7);
        assertThat(line.path("completion_tokens").asInt()).isEqualTo(3);
        assertThat(line.has("answer")).isFalse();
        assertThat(line.has("body")).isFalse();
    }

    @Test
    void includeText_streamedMiss_bodyAndAnswerRedacted() throws Exception {
        AccessLog log = log(true);
        Exchange x = exchanges.chat(Exchanges.chatBody("m", "card 4111 1111 1111 1111 for bob@example.com"));
        log.started(x);
        answer(x, "data: {\"choices\":[{\"delta\":{\"content\":\"Write to \"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"bob@example.com\"}}]}\n\n", "data: [DONE]\n\n");

        log.finished(x, 200, 1);

        JsonNode line = onlyLine();
        assertThat(line.path("body").path("messages").path(0).path("content").asText())
                .isEqualTo("card [REDACTED:payment_card] for [REDACTED:email]");
        assertThat(line.path("body").path("temperature").asInt()).isZero();
        assertThat(line.path("answer").asText()).isEqualTo("Write to [REDACTED:email]");
    }

    @Test
    void includeText_hit_answerAsTheClientGotIt_usageFromTheEntry() throws Exception {
        AccessLog log = log(true);
        Exchange x = exchanges.chat(Exchanges.chatBody("m", "hello"));
        log.started(x);
        x.record().hit("exact", Double.NaN, "o", 1, 1, 1, null);
        answer(x, Answer.Source.CACHE, "{\"choices\":[{\"message\":{\"content\":\"stored answer\"}}],",
                "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}");

        log.finished(x, 200, 1);

        JsonNode line = onlyLine();
        assertThat(line.path("answer").asText()).isEqualTo("stored answer");
        assertThat(line.path("prompt_tokens").asInt()).as("the entry's, as the hit recorded them").isEqualTo(1);
    }

    @Test
    void includeText_streamedHit_answerFromTheReplay() throws Exception {
        AccessLog log = log(true);
        Exchange x = exchanges.chat(Exchanges.chatBody("m", "hello"));
        log.started(x);
        x.record().hit("semantic", 0.95, "o", 1, 1, 1, null);
        answer(x, Answer.Source.CACHE, "data: {\"choices\":[{\"delta\":{\"content\":\"stored \"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"answer\"}}]}\n\n", "data: [DONE]\n\n");

        log.finished(x, 200, 1);

        assertThat(onlyLine().path("answer").asText()).isEqualTo("stored answer");
    }

    @Test
    void includeText_followersAnswerOrTheGatewaysOwn_noAnswer() throws Exception {
        AccessLog log = log(true);
        Exchange follower = exchanges.chat(Exchanges.chatBody("m", "hello"));
        log.started(follower);
        answer(follower, Answer.Source.COALESCED, "{\"choices\":[{\"message\":{\"content\":\"shared\"}}]}");
        log.finished(follower, 200, 1);
        Exchange models = exchanges.chat(Exchanges.chatBody("m", "hello"));
        log.started(models);
        answer(models, Answer.Source.GATEWAY, "{\"object\":\"list\",\"data\":[]}");
        log.finished(models, 200, 1);

        writer.close(Duration.ofSeconds(10));
        assertThat(lines).hasSize(2);
        assertThat(JSON.readTree(lines.get(0)).has("answer")).isFalse();
        assertThat(JSON.readTree(lines.get(1)).has("answer")).isFalse();
    }

    @Test
    void clientLeft_andRefusedOnItsHead_haveLines() throws Exception {
        AccessLog log = log(false);
        Exchange x = exchanges.chat(Exchanges.chatBody("m", "hello"));
        log.finished(x, 499, 1);
        log.refused(401, "rid-1", "invalid_api_key", null);
        log.refused(429, "rid-2", "quota_requests", "acme");

        writer.close(Duration.ofSeconds(10));
        assertThat(lines).hasSize(3);
        assertThat(JSON.readTree(lines.get(0)).path("status").asInt()).isEqualTo(499);
        JsonNode refused = JSON.readTree(lines.get(1));
        assertThat(refused.path("request_id").asText()).isEqualTo("rid-1");
        assertThat(refused.path("reason").asText()).isEqualTo("invalid_api_key");
        assertThat(refused.path("cache").asText()).isEqualTo("error");
        assertThat(refused.has("tenant")).as("not known before the key was read").isFalse();
        JsonNode limited = JSON.readTree(lines.get(2));
        assertThat(limited.path("tenant").asText()).as("refused by its tenant's limits at the head").isEqualTo("acme");
        assertThat(limited.path("reason").asText()).isEqualTo("quota_requests");
    }
}
