package io.cachegate.gateway.admin;

import io.cachegate.gateway.cache.ModelVersions;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;

/** The admin listener's pipeline; admin requests are small, so bodies are capped at 64 KiB. */
public final class AdminChannelInitializer extends ChannelInitializer<SocketChannel> {

    private final AdminHandler handler;

    public AdminChannelInitializer(AdminView view, CacheAdmin cache, ModelVersions versions) {
        this.handler = new AdminHandler(view, cache, versions);
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("aggregate", new HttpObjectAggregator(64 * 1024))
                .addLast("admin", handler);
    }
}
