package io.cachegate.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A tiny OpenAI-style backend for tests that need to see what the gateway sends (the headers of each request) and
 * to hold answers back: a prompt containing {@code "hold"} is answered only after {@link #release()}. Every answer
 * is a chat completion with usage 7 + 3 tokens.
 */
final class RecordingUpstream implements AutoCloseable {

    /** One request as received: its prompt (the last message's content) and its W3C trace headers. */
    record Received(String prompt, String traceparent, String tracestate) {
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch held = new CountDownLatch(1);

    RecordingUpstream() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", this::answer);
        server.createContext("/v1/models", this::models); // the gateway's health probe
        server.start();
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    List<Received> received() {
        return received;
    }

    /** The request whose prompt contains {@code text}; fails when there is none. */
    Received request(String text) {
        return received.stream().filter(r -> r.prompt().contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError("the backend saw no request with " + text + ": " + received));
    }

    /** Answers every held request, and the ones to come. */
    void release() {
        held.countDown();
    }

    private void models(HttpExchange exchange) throws IOException {
        byte[] list = "{\"object\":\"list\",\"data\":[]}".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, list.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(list);
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        JsonNode body = CacheCalls.json(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        JsonNode messages = body.path("messages");
        String prompt = messages.path(messages.size() - 1).path("content").asText();
        received.add(new Received(prompt, exchange.getRequestHeaders().getFirst("traceparent"),
                exchange.getRequestHeaders().getFirst("tracestate")));
        if (prompt.contains("hold")) {
            try {
                held.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] answer = ("{\"id\":\"chatcmpl-rec\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":"
                + CacheCalls.quote(body.path("model").asText()) + ",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                + "\"assistant\",\"content\":" + CacheCalls.quote("answer to " + prompt) + "},\"finish_reason\":"
                + "\"stop\"}],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, answer.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
        }
    }

    @Override
    public void close() {
        held.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
