package io.cachegate.simulator;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection: routes each request to its endpoint and answers requests in order. A pipelined
 * request waits (bounded) until the answer before it is complete, and a disconnect cancels the
 * generation in progress, which is how the gateway's tests observe an upstream cancel.
 */
final class SimulatorHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(SimulatorHandler.class);
    /** Pipelined requests held per connection; a client sending more is closed on. */
    private static final int MAX_PIPELINED = 16;

    private final Simulation sim;
    private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
    private Generation current;
    /** An answer is in progress (a generation, or a hang that never ends). */
    private boolean busy;
    private boolean closing;
    private boolean draining;

    SimulatorHandler(Simulation sim) {
        this.sim = sim;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (pending.size() >= MAX_PIPELINED) {
            ctx.close();
            return;
        }
        pending.add(request.retain());
        drain(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (current != null) {
            current.cancel();
            current = null;
        }
        FullHttpRequest request;
        while ((request = pending.poll()) != null) {
            request.release();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("connection error: {}", cause.toString()); // resets are routine: clients cancel
        } else {
            LOG.warn("unexpected error, closing the connection", cause);
        }
        ctx.close();
    }

    private void drain(ChannelHandlerContext ctx) {
        if (draining) {
            return; // a generation finished synchronously inside handle(): the loop below continues
        }
        draining = true;
        try {
            FullHttpRequest request;
            while (!busy && !closing && ctx.channel().isActive() && (request = pending.poll()) != null) {
                try {
                    handle(ctx, request);
                } finally {
                    request.release();
                }
            }
        } finally {
            draining = false;
        }
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
        closing = !keepAlive;
        if (request.decoderResult().isFailure()) {
            HttpResponses.sendError(ctx, ApiError.BAD_REQUEST, "Malformed HTTP request.", null, false);
            return;
        }
        String uri = request.uri();
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        HttpMethod method = request.method();
        try {
            switch (path) {
                case "/v1/chat/completions" -> {
                    if (allowed(ctx, method, HttpMethod.POST, keepAlive)) {
                        completion(ctx, request, CompletionRequest.Kind.CHAT, keepAlive);
                    }
                }
                case "/v1/completions" -> {
                    if (allowed(ctx, method, HttpMethod.POST, keepAlive)) {
                        completion(ctx, request, CompletionRequest.Kind.TEXT, keepAlive);
                    }
                }
                case "/v1/responses" -> {
                    if (allowed(ctx, method, HttpMethod.POST, keepAlive)) {
                        completion(ctx, request, CompletionRequest.Kind.RESPONSES, keepAlive);
                    }
                }
                case "/v1/embeddings" -> {
                    if (allowed(ctx, method, HttpMethod.POST, keepAlive)) {
                        embeddings(ctx, request, keepAlive);
                    }
                }
                case "/v1/models" -> {
                    if (allowed(ctx, method, HttpMethod.GET, keepAlive)) {
                        HttpResponses.sendJson(ctx, HttpResponseStatus.OK, sim.cards.modelsJson(), keepAlive);
                    }
                }
                case "/health" -> {
                    if (allowed(ctx, method, HttpMethod.GET, keepAlive)) {
                        HttpResponses.sendEmpty(ctx, HttpResponseStatus.OK, keepAlive);
                    }
                }
                case "/sim/stats" -> {
                    if (allowed(ctx, method, HttpMethod.GET, keepAlive)) {
                        HttpResponses.sendJson(ctx, HttpResponseStatus.OK, sim.stats().toJson(), keepAlive);
                    }
                }
                case "/metrics" -> {
                    if (allowed(ctx, method, HttpMethod.GET, keepAlive)) {
                        HttpResponses.sendText(ctx, HttpResponseStatus.OK, VllmMetrics.PROMETHEUS_TEXT,
                                VllmMetrics.render(sim.options.models().get(0), sim.stats(),
                                        sim.options.maxConcurrency()), keepAlive);
                    }
                }
                default -> {
                    if (!ModelCardUpdate.matches(path)) {
                        HttpResponses.sendError(ctx, ApiError.NOT_FOUND, "Not Found: " + path, null, keepAlive);
                    } else if (allowed(ctx, method, HttpMethod.POST, keepAlive)) {
                        HttpResponses.sendJson(ctx, HttpResponseStatus.OK,
                                ModelCardUpdate.apply(sim.cards, path, readJson(request)), keepAlive);
                    }
                }
            }
        } catch (InvalidRequestException e) {
            HttpResponses.sendError(ctx, e.error, e.getMessage(), e.param, keepAlive);
        }
    }

    private static boolean allowed(ChannelHandlerContext ctx, HttpMethod method, HttpMethod expected,
                                   boolean keepAlive) {
        if (method.equals(expected)) {
            return true;
        }
        FullHttpResponse response = HttpResponses.error(ctx, ApiError.METHOD_NOT_ALLOWED,
                "Method " + method + " not allowed; use " + expected + ".", null);
        response.headers().set(HttpHeaderNames.ALLOW, expected.asciiName());
        HttpResponses.send(ctx, response, keepAlive);
        return false;
    }

    private void completion(ChannelHandlerContext ctx, FullHttpRequest http, CompletionRequest.Kind kind,
                            boolean keepAlive) {
        sim.requests.increment();
        CompletionRequest parsed = CompletionRequest.parse(kind, readJson(http), sim.options.models(),
                sim.options.defaultMaxTokens(), sim.prefixBlockChars());
        // A text the answer book holds gets its label's answer: the same for every paraphrase of the label.
        CompletionRequest request = sim.options.answers().label(parsed.lastUserText())
                .map(label -> parsed.answeredWith(AnswerBook.answer(label))).orElse(parsed);
        if (injectFault(ctx, keepAlive)) {
            return;
        }
        busy = true;
        if (!sim.tokenizes()) {
            generate(ctx, request, keepAlive);
            return;
        }
        // Tokenizing a long prompt takes milliseconds: on the tokenizer thread, then back on this loop.
        sim.tokenized(request).whenComplete((tokenized, error) -> ctx.executor().execute(() -> {
            if (!ctx.channel().isActive()) {
                busy = false; // channelInactive released what was pending
                sim.cancelled.increment(); // the client left before its answer, during tokenizing
            } else if (error == null) {
                generate(ctx, tokenized, keepAlive);
            } else {
                sim.errors.increment();
                Throwable cause = error instanceof CompletionException ? error.getCause() : error;
                if (cause instanceof RejectedExecutionException) {
                    HttpResponses.sendError(ctx, ApiError.OVERLOADED, "The server is overloaded: "
                            + Simulation.TOKENIZE_QUEUE + " prompts are already waiting to be tokenized.", null,
                            keepAlive);
                } else {
                    LOG.warn("cannot tokenize a prompt", cause);
                    HttpResponses.sendError(ctx, ApiError.INTERNAL, "Cannot tokenize the prompt: " + cause, null,
                            keepAlive);
                }
                busy = false;
                drain(ctx);
            }
        }));
    }

    private void generate(ChannelHandlerContext ctx, CompletionRequest request, boolean keepAlive) {
        current = new Generation(ctx, sim, request, keepAlive, () -> {
            current = null;
            busy = false;
            drain(ctx);
        });
        current.submit();
    }

    /** Answers after the prefill of the inputs' tokens ({@code prefillMsPerToken}; at once by default). */
    private void embeddings(ChannelHandlerContext ctx, FullHttpRequest http, boolean keepAlive) {
        sim.requests.increment();
        EmbeddingGenerator.Answer answer = EmbeddingGenerator.respond(readJson(http), sim.options.models());
        sim.embeddingInputs.add(answer.inputs());
        if (injectFault(ctx, keepAlive)) {
            return;
        }
        long delay = sim.latency.embedNanos(answer.promptTokens());
        if (delay <= 0) {
            HttpResponses.sendJson(ctx, HttpResponseStatus.OK, answer.json(), keepAlive);
            sim.completed.increment();
            return;
        }
        busy = true; // answers leave in request order: the next pipelined request waits for this one
        ctx.executor().schedule(() -> {
            busy = false;
            if (ctx.channel().isActive()) {
                HttpResponses.sendJson(ctx, HttpResponseStatus.OK, answer.json(), keepAlive);
                sim.completed.increment();
            }
            drain(ctx);
        }, delay, TimeUnit.NANOSECONDS);
    }

    /** Applies an injected fault, if this request draws one; true when the request is dealt with. */
    private boolean injectFault(ChannelHandlerContext ctx, boolean keepAlive) {
        switch (sim.faults.next()) {
            case ERROR -> {
                sim.errors.increment();
                HttpResponses.sendError(ctx, ApiError.INTERNAL, "Injected fault: simulated internal error.", null,
                        keepAlive);
                return true;
            }
            case HANG -> {
                sim.hung.increment();
                busy = true; // never cleared: this connection answers nothing more until the client closes it
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private JsonNode readJson(FullHttpRequest http) {
        if (!http.content().isReadable()) {
            throw InvalidRequestException.badRequest("The request body is empty; expected JSON.", null);
        }
        try (InputStream in = new ByteBufInputStream(http.content().duplicate())) {
            return sim.mapper.readTree(in);
        } catch (JacksonException e) {
            throw InvalidRequestException.badRequest("Malformed JSON in the request body: " + e.getOriginalMessage(),
                    null);
        } catch (IOException e) {
            throw InvalidRequestException.badRequest("Unreadable request body: " + e.getMessage(), null);
        }
    }
}
