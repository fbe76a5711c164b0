package io.cachegate.gateway.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.function.Consumer;

/**
 * Collects a whole (small) upstream answer for the gateway's own calls: the model lists and the
 * health checks. Bounded: an answer over {@code maxBytes} fails as a bad response.
 */
public final class BufferedAnswer implements UpstreamListener {

    /** A completed answer, or a failure (status 0 and {@code failure} set). */
    public record Result(int status, byte[] body, UpstreamFailure failure) {
        public boolean ok() {
            return failure == null && status >= 200 && status < 300;
        }
    }

    private final int maxBytes;
    private final Consumer<Result> onResult;
    private CompositeByteBuf body;
    private int status;
    private boolean finished;

    public BufferedAnswer(int maxBytes, Consumer<Result> onResult) {
        this.maxBytes = maxBytes;
        this.onResult = onResult;
    }

    @Override
    public boolean onResponseHead(UpstreamCall call, HttpResponse head) {
        status = head.status().code();
        body = Unpooled.compositeBuffer();
        return true;
    }

    @Override
    public void onContent(UpstreamCall call, HttpContent content) {
        if (finished) {
            content.release();
            return;
        }
        ByteBuf bytes = content.content();
        if (body.readableBytes() + bytes.readableBytes() > maxBytes) {
            content.release();
            call.cancel();
            complete(new Result(0, new byte[0], UpstreamFailure.BAD_RESPONSE));
            return;
        }
        body.addComponent(true, bytes.retain());
        content.release();
        if (content instanceof LastHttpContent) {
            complete(new Result(status, ByteBufUtil.getBytes(body), null));
        }
    }

    @Override
    public void onReadComplete(UpstreamCall call) {
        call.requestMore();
    }

    @Override
    public void onFailure(UpstreamCall call, UpstreamFailure failure, Throwable cause) {
        complete(new Result(0, new byte[0], failure));
    }

    private void complete(Result result) {
        if (finished) {
            return;
        }
        finished = true;
        if (body != null) {
            body.release();
            body = null;
        }
        onResult.accept(result);
    }
}
