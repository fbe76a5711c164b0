package io.cachegate.gateway.admin;

import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.server.tls.ListenerTls;
import io.cachegate.gateway.telemetry.log.AuditLog;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.util.Optional;

/** The admin listener's pipeline; admin requests are small, so bodies are capped at 64 KiB. */
public final class AdminChannelInitializer extends ChannelInitializer<SocketChannel> {

    private final AdminHandler handler;
    private final Optional<ListenerTls> tls;

    public AdminChannelInitializer(AdminView view, CacheAdmin cache, ModelVersions versions) {
        this(view, cache, versions, Optional.empty(), AuditLog.OFF);
    }

    /** With {@code tls}, the admin listener speaks HTTPS only; purges and reloads are written to {@code audit}. */
    public AdminChannelInitializer(AdminView view, CacheAdmin cache, ModelVersions versions,
                                   Optional<ListenerTls> tls, AuditLog audit) {
        this.handler = new AdminHandler(view, cache, versions, audit);
        this.tls = tls;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        tls.ifPresent(t -> t.addTo(ch));
        ch.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("aggregate", new HttpObjectAggregator(64 * 1024))
                .addLast("admin", handler);
    }
}
