package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Holds a request body while it arrives, within the buffered-body budgets ({@link BodyBudget}). Each piece the
 * decoder hands on is copied into one heap buffer of the body's own and its pooled read buffer released at once:
 * a body sent slowly then pins no pooled direct memory (a retained slice of a read buffer keeps the whole pooled
 * chunk under it, and the allocator keeps its chunks), and the bytes held are the bytes charged. A declared
 * length is charged at the head, before a byte of the body is read, and allocated once; a chunked body grows by
 * doubling, each growth charged first. Beyond a budget the request is refused (429 for its tenant's share, 503
 * for the whole, with {@code Retry-After}), its bytes given back and the rest of the connection dropped; a
 * chunked body past {@code server.max_body_bytes} gets 413. The charge is given back exactly once: when the
 * body is whole (the head and one last content go on to the aggregator), refused, or the connection ends.
 */
final class BodyIntake extends ChannelInboundHandlerAdapter {

    /** A body of unknown length starts with this much room. */
    static final int FIRST_CAPACITY = 8 * 1024;

    private final BodyBudget budget;
    private final CheckedHead checked;
    private final ServerSettings.Connections limits;
    private final int maxBody;
    private ChannelHandlerContext ctx;
    /** Set after a refusal: everything after it on the connection is dropped. */
    private boolean closing;
    private boolean inBody;
    private String tenant;
    /** The declared length, or -1 for a chunked body. */
    private long declared;
    private ByteBuf body;
    private long charged;

    BodyIntake(BodyBudget budget, CheckedHead checked, ServerSettings server) {
        this.budget = budget;
        this.checked = checked;
        this.limits = server.connections();
        this.maxBody = ProxyChannelInitializer.maxBody(server);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest head && !(msg instanceof HttpContent)) {
            if (head.decoderResult().isSuccess() && !start(head)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        if (inBody && msg instanceof HttpContent content) {
            try {
                if (!append(content.content())) {
                    return;
                }
            } finally {
                content.release();
            }
            if (msg instanceof LastHttpContent) {
                ByteBuf whole = body == null ? Unpooled.EMPTY_BUFFER : body;
                body = null;
                end();
                ctx.fireChannelRead(new DefaultLastHttpContent(whole));
            }
            return;
        }
        if (msg instanceof Refusal) {
            discard(); // a refusal from before the body was whole: its request is over
        }
        ctx.fireChannelRead(msg);
    }

    /** Charges a declared length; false (and the refusal sent on) when a budget cannot hold it. */
    private boolean start(HttpRequest head) {
        discard();
        boolean chunked = HttpUtil.isTransferEncodingChunked(head);
        long length = chunked ? -1 : HttpUtil.getContentLength(head, 0L);
        if (!chunked && length <= 0) {
            return true;
        }
        String t = checked.tenant();
        tenant = t == null ? Exchange.DEFAULT_TENANT : t;
        declared = length;
        inBody = true;
        // A declared length over max_body_bytes was refused by the head check; charge no more than the limit.
        return declared <= 0 || charge(Math.min(declared, maxBody));
    }

    /** Copies {@code data} into the body, growing (and charging) it first when needed; false after a refusal. */
    private boolean append(ByteBuf data) {
        int n = data.readableBytes();
        if (n == 0) {
            return true;
        }
        long need = (body == null ? 0 : (long) body.writerIndex()) + n;
        if (need > maxBody) {
            refuse(ErrorKind.BODY_TOO_LARGE, "Request body is larger than the limit of " + maxBody + " bytes");
            return false;
        }
        if (body == null || need > body.capacity()) {
            long capacity = declared > 0 ? Math.min(declared, maxBody) : grown(need);
            if (capacity > charged && !charge(capacity - charged)) {
                return false;
            }
            if (body == null) {
                body = Unpooled.buffer((int) capacity, maxBody);
            } else {
                body.capacity((int) capacity);
            }
        }
        body.writeBytes(data);
        return true;
    }

    /** The next power of two that holds {@code need}, at least {@link #FIRST_CAPACITY}, at most the body limit. */
    private long grown(long need) {
        long capacity = Math.max(FIRST_CAPACITY, Long.highestOneBit(need - 1) << 1);
        return Math.min(capacity, maxBody);
    }

    private boolean charge(long bytes) {
        ErrorKind refused = budget.charge(tenant, bytes, limits);
        if (refused == null) {
            charged += bytes;
            return true;
        }
        refuse(refused, refused == ErrorKind.BODY_BUDGET_TENANT
                ? "Too many request bodies of this API key's tenant are still arriving (limit "
                        + budget.tenantLimit(limits) + " bytes held at once). Please try again shortly."
                : "The gateway holds as many arriving request bodies as it can (limit " + budget.totalLimit(limits)
                        + " bytes). Please try again shortly.");
        return false;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Refuses the request whose body is arriving: its bytes and place given back, the connection to end. */
    private void refuse(ErrorKind kind, String message) {
        String refusedTenant = tenant;
        closing = true;
        discard();
        checked.release();
        ctx.fireChannelRead(new Refusal(kind, message, true, null, 1, EmptyHttpHeaders.INSTANCE, refusedTenant,
                kind.code()));
    }

    /** The body is whole: its charge is given back (the request holds it from here, under the tenant's limits). */
    private void end() {
        budget.release(tenant, charged);
        charged = 0;
        inBody = false;
        tenant = null;
    }

    /** Drops a body not yet whole and gives its charge back. */
    private void discard() {
        if (body != null) {
            body.release();
            body = null;
        }
        if (inBody || charged > 0) {
            end();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        discard();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        discard();
    }
}
