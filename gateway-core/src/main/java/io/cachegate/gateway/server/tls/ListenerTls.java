package io.cachegate.gateway.server.tls;

import io.cachegate.config.TlsSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS on one listener, kept in step with its files: they are read every {@link #POLL_MILLIS} ms on a thread of
 * their own (content hashed, not mtimes: a Kubernetes Secret update swaps a symlink), and a changed pair that
 * {@link TlsContexts} accepts replaces the context for new connections; connections already open keep theirs. A
 * pair it refuses (a half-written rotation, a key for another certificate) leaves the running one in place, is
 * logged once and counted in {@code cachegate.tls.reloads{listener, outcome=rejected}}.
 */
public final class ListenerTls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ListenerTls.class);
    public static final long POLL_MILLIS = 1000;

    private final String listener;
    /** The proxy listener speaks HTTP/2 too (ALPN {@code h2}); the admin listener HTTP/1.1 only. */
    private final boolean http2;
    private final TlsSettings settings;
    private final long handshakeTimeoutMillis;
    private final Counter applied;
    private final Counter rejected;
    private final Counter handshakesFailed;
    private final ScheduledExecutorService watcher;
    private volatile TlsContexts.Built current;
    private byte[] seen;

    private ListenerTls(String listener, TlsSettings settings, Duration handshakeTimeout, MeterRegistry registry)
            throws TlsFileException {
        this.listener = listener;
        this.http2 = listener.equals("proxy");
        this.settings = settings;
        this.handshakeTimeoutMillis = Math.max(1, handshakeTimeout.toMillis());
        this.seen = hash(settings);
        this.current = TlsContexts.build(settings, http2);
        this.applied = reloads(registry, "applied");
        this.rejected = reloads(registry, "rejected");
        this.handshakesFailed = Counter.builder("cachegate.tls.handshakes.failed").tag("listener", listener)
                .description("TLS handshakes that failed or timed out (no or untrusted client certificate, plain "
                        + "HTTP, a client that never finished)").register(registry);
        Gauge.builder("cachegate.tls.certificate.expiry", this,
                        tls -> tls.current.certificate().getNotAfter().getTime() / 1000.0)
                .tag("listener", listener).description("When the served certificate expires, in epoch seconds")
                .register(registry);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "cachegate-tls-" + listener);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.watcher = executor;
    }

    /**
     * TLS for {@code listener} ({@code proxy}, {@code admin}) from {@code settings}, watched from now on; a client
     * gets {@code handshakeTimeout} to finish its handshake. Throws when the files cannot be used.
     */
    public static ListenerTls start(String listener, TlsSettings settings, Duration handshakeTimeout,
                                    MeterRegistry registry) throws TlsFileException {
        ListenerTls tls = new ListenerTls(listener, settings, handshakeTimeout, registry);
        tls.watcher.scheduleWithFixedDelay(tls::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
        return tls;
    }

    /**
     * Puts TLS in front of the rest of {@code channel}'s pipeline: plain HTTP sent to this port gets a 400 in
     * plain text, and everything after the handshake is decrypted for the handlers that follow.
     */
    public void addTo(Channel channel) {
        SslHandler ssl = current.context().newHandler(channel.alloc());
        ssl.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
        ChannelPipeline p = channel.pipeline();
        p.addLast("plain-http-refusal", new PlainHttpRefusal());
        p.addLast("tls", ssl);
        p.addLast("tls-handshake", new HandshakeOutcome(handshakesFailed));
    }

    /** The certificate new connections are served. */
    public X509Certificate certificate() {
        return current.certificate();
    }

    /** Runs on the watch thread. */
    synchronized void poll() {
        try {
            byte[] now = hash(settings);
            if (now == null || Arrays.equals(now, seen)) {
                return; // unchanged, or a file mid-swap: look again next time
            }
            seen = now; // a refused pair is reported once, not at every poll
            TlsContexts.Built next = TlsContexts.build(settings, http2);
            current = next;
            applied.increment();
            log.info("{} listener: new TLS certificate (serial {}, valid until {}) for new connections", listener,
                    next.certificate().getSerialNumber().toString(16), next.certificate().getNotAfter());
        } catch (TlsFileException e) {
            rejected.increment();
            log.warn("{} listener: the changed TLS files were refused, the running certificate stays: {}", listener,
                    e.getMessage());
        } catch (RuntimeException e) {
            rejected.increment();
            log.warn("{} listener: TLS reload failed, the running certificate stays: {}", listener, e.toString());
        }
    }

    private Counter reloads(MeterRegistry registry, String outcome) {
        return Counter.builder("cachegate.tls.reloads").tag("listener", listener).tag("outcome", outcome)
                .description("Changed certificate/key files: applied for new connections, or rejected (kept the old)")
                .register(registry);
    }

    /** SHA-256 over the three files' contents, or null when one cannot be read right now. */
    private static byte[] hash(TlsSettings settings) {
        List<String> files = new ArrayList<>(List.of(settings.certificate(), settings.key()));
        settings.clientCa().ifPresent(files::add);
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String file : files) {
                byte[] bytes = Files.readAllBytes(Path.of(file));
                digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).flip());
                digest.update(bytes);
            }
            return digest.digest();
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        watcher.shutdownNow();
    }
}
