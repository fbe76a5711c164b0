package io.cachegate.gateway.server.tls;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.util.HexFormat;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The client certificate a connection presented and the handshake verified against {@code client_ca}, named by
 * the SHA-256 of its DER encoding (what {@code openssl x509 -fingerprint -sha256} prints). Worked out once per
 * connection and kept on the channel.
 */
public final class ClientCertificates {

    private static final AttributeKey<String> FINGERPRINT = AttributeKey.valueOf("cachegate.client-certificate");
    private static final String NONE = "";

    private ClientCertificates() {
    }

    /**
     * The fingerprint (64 lower-case hex digits), or null without TLS or without a client certificate. An HTTP/2
     * stream's channel answers for its connection, which holds the TLS session.
     */
    public static String fingerprint(Channel channel) {
        if (channel instanceof Http2StreamChannel stream) {
            channel = stream.parent();
        }
        String known = channel.attr(FINGERPRINT).get();
        if (known == null) {
            known = compute(channel);
            channel.attr(FINGERPRINT).set(known);
        }
        return known.isEmpty() ? null : known;
    }

    private static String compute(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
            return NONE;
        }
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            if (chain.length == 0) {
                return NONE;
            }
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded()));
        } catch (SSLPeerUnverifiedException e) {
            return NONE; // no certificate sent (client_auth: optional)
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
