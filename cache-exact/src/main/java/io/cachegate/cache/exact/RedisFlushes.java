package io.cachegate.cache.exact;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Coalesces the flushes of a Redis connection that runs on the gateway's event loops: Lettuce flushes each
 * command it writes, so the GETs of the many requests one loop reads in one pass would each cost a write to the
 * socket. Netty's {@link FlushConsolidationHandler} (also outside a read of this channel) defers them to one
 * flush at the end of the loop's pass: the pass's lookups go out pipelined in one write. Lettuce's documented
 * customisation point ({@link NettyCustomizer}) adds it to every channel, reconnects included.
 */
final class RedisFlushes implements NettyCustomizer {

    /** Flush at the latest after this many deferred ones (Netty's default), so a long pass cannot hold them back. */
    private static final int MAX_DEFERRED = FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES;

    @Override
    public void afterChannelInitialized(Channel channel) {
        channel.pipeline().addFirst("cachegate-flushes", new FlushConsolidationHandler(MAX_DEFERRED, true));
    }
}
