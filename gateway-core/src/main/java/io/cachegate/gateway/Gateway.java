package io.cachegate.gateway;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.CacheStores;
import io.cachegate.cache.exact.EntrySigner;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.cache.exact.RedisFlightLeases;
import io.cachegate.cache.exact.StoreHealth;
import io.cachegate.cache.exact.TieredCacheStore;
import io.cachegate.config.AdminExposure;
import io.cachegate.config.ExactCacheSettings;
import io.cachegate.config.ExactStore;
import io.cachegate.config.Policy;
import io.cachegate.config.ServerSettings;
import io.cachegate.config.Ticker;
import io.cachegate.config.TlsSettings;
import io.cachegate.gateway.admin.AdminChannelInitializer;
import io.cachegate.gateway.admin.CacheAdmin;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.cache.semantic.SemanticCaches;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.server.DescriptorBudget;
import io.cachegate.gateway.server.ProxyChannelInitializer;
import io.cachegate.gateway.server.tls.ListenerTls;
import io.cachegate.gateway.server.tls.TlsFileException;
import io.cachegate.gateway.telemetry.Telemetry;
import io.cachegate.gateway.transport.LettuceLoops;
import io.cachegate.gateway.transport.LoopLag;
import io.cachegate.gateway.transport.Transport;
import io.cachegate.gateway.upstream.UpstreamClient;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: the proxy listener, the admin listener, the exact cache, the upstream client
 * and the backend health probes, on one event loop group so an upstream connection shares its
 * client's loop. The admin listener and the status page's sampling run on a loop of their own: a
 * Prometheus scrape renders tens of kilobytes (milliseconds of CPU), and on a proxy loop every request
 * behind it, a 429 that should take a fraction of a millisecond included, would wait for it.
 */
public final class Gateway implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Gateway.class);

    /** How often the status page's series take a point. */
    static final long STATUS_SAMPLE_MILLIS = 2_000;

    private final Policy policy;
    private final Transport transport;
    private final EventLoopGroup group;
    private final EventLoopGroup adminGroup;
    private final GatewayMetrics metrics;
    private final UpstreamClient upstream;
    private final Ticker ticker;
    private final Telemetry telemetry;
    private final PolicyReloader reloader;
    private final ScheduledFuture<?> admissionTick;
    private final ScheduledFuture<?> statusSample;
    private final CacheStore store;
    private final SemanticCache semantic;
    /** Null unless misses coalesce across gateways (cache.fleet.coalesce with a Redis-backed store). */
    private final FlightLeases fleet;
    private final ChannelGroup clientChannels = new DefaultChannelGroup("clients", GlobalEventExecutor.INSTANCE);
    private final Channel proxyChannel;
    private final Channel adminChannel;
    private final Optional<ListenerTls> proxyTls;
    private final Optional<ListenerTls> adminTls;
    private boolean closed;

    /** @param testSpans for tests, where spans go instead of the policy's OTLP endpoint; empty in production */
    private Gateway(Policy policy, Optional<Path> policyFile, Optional<SpanExporter> testSpans)
            throws InterruptedException {
        this.policy = policy;
        ServerSettings server = policy.server();
        checkExposure(policy);
        this.transport = Transport.best();
        LettuceLoops.steer(transport);
        int threads = server.ioThreads() > 0 ? server.ioThreads() : Runtime.getRuntime().availableProcessors();
        this.group = transport.newGroup(threads, "cachegate-io");
        LoopLag.start(group);
        this.adminGroup = transport.newGroup(1, "cachegate-admin");
        this.metrics = new GatewayMetrics();
        this.ticker = Ticker.system();
        this.upstream = new UpstreamClient(transport, threads, ticker);
        ModelVersions versions = new ModelVersions();
        StoreHealth storeHealth = new StoreHealth();
        metrics.watchStore(storeHealth::available, storeHealth::errors);
        this.semantic = policy.cache().semantic().enabled()
                ? SemanticCaches.open(policy.cache().semantic(), metrics.semantic(), ticker) : null;
        if (semantic != null) {
            metrics.budgetWatch().watch(semantic::watchByRoute);
        }
        this.store = CacheStores.create(policy.cache().exact(), storeHealth, ticker,
                LettuceLoops.of(group, threads, transport).orElse(null));
        ExactCacheSettings exact = policy.cache().exact();
        if (exact.store() != ExactStore.MEMORY) {
            metrics.watchStoreHealth(storeHealth);
        }
        if (store instanceof TieredCacheStore tiered) {
            metrics.watchL1(tiered::coherent, tiered::tracked);
        }
        this.fleet = policy.cache().fleet().coalesce() && exact.store() != ExactStore.MEMORY
                // A claim that times out costs a second upstream call: it may take as long as the store's slowest.
                ? RedisFlightLeases.connect(exact.redisUri(), exact.health().timeoutMax(),
                        policy.cache().fleet().maxWaiters())
                : null;
        if (fleet != null) {
            metrics.watchFleet(fleet::listeners);
        }
        if (semantic != null && exact.store() != ExactStore.MEMORY && policy.cache().fleet().shareEvidence()) {
            semantic.shareEvidence(exact.redisUri(), policy.cache().fleet().evidenceEvents(),
                    exact.health().timeoutMax(),
                    exact.signingKey().map(k -> EntrySigner.hmacSha256(k.bytes())).orElse(EntrySigner.none()));
        }
        this.telemetry = openTelemetry(policy, testSpans);
        this.reloader = new PolicyReloader(policy, policyFile, group, metrics, upstream, ticker, versions, store,
                semantic, telemetry, fleet);
        Optional<ListenerTls> tls = Optional.empty();
        Optional<ListenerTls> admin = Optional.empty();
        try {
            // The handshake is part of a request head: a client that never finishes it is cut off as slowly.
            Duration handshake = server.connections().headerTimeout();
            DescriptorBudget descriptors = DescriptorBudget.ofProcess();
            descriptors.warning(policy).ifPresent(log::warn);
            tls = startTls("proxy", server.tls(), handshake);
            admin = startTls("admin", server.adminTls(), handshake);
            this.proxyChannel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ProxyChannelInitializer(reloader.paths(), clientChannels, tls, descriptors))
                    .bind(server.host(), server.port()).sync().channel();
            this.adminChannel = new ServerBootstrap()
                    .group(adminGroup)
                    .channel(transport.serverChannel())
                    .childHandler(new AdminChannelInitializer(reloader, new CacheAdmin(store,
                            Optional.ofNullable(semantic), reloader.coalescer()::purged), versions, admin,
                            telemetry.audit()))
                    .bind(server.adminHost(), server.adminPort()).sync().channel();
        } catch (RuntimeException | InterruptedException e) {
            tls.ifPresent(ListenerTls::close);
            admin.ifPresent(ListenerTls::close);
            reloader.close();
            telemetry.close();
            closeCaches();
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            adminGroup.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
        this.proxyTls = tls;
        this.adminTls = admin;
        reloader.start();
        // Ticked whether or not admission is on now: a reload may turn it on, and a tick without queues is free.
        long tick = policy.admission().tick().toNanos();
        admissionTick = group.next().scheduleAtFixedRate(reloader::tick, tick, tick, TimeUnit.NANOSECONDS);
        statusSample = adminGroup.next().scheduleAtFixedRate(metrics.series()::sample, 0, STATUS_SAMPLE_MILLIS,
                TimeUnit.MILLISECONDS);
        log.info("cachegate listening on {} {} (admin {} {}), transport {}, policy {}",
                tls.isPresent() ? "https" : "http", proxyChannel.localAddress(), admin.isPresent() ? "https" : "http",
                adminChannel.localAddress(), transport, policy.source());
    }

    /** The telemetry (its log files opened now): a file that cannot be opened refuses the start. */
    private Telemetry openTelemetry(Policy policy, Optional<SpanExporter> testSpans) {
        try {
            return testSpans.map(spans -> Telemetry.forTesting(policy, metrics, ticker, spans))
                    .orElseGet(() -> new Telemetry(policy, metrics, ticker));
        } catch (UncheckedIOException | IllegalArgumentException e) {
            closeCaches();
            upstream.close();
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new StartRefusedException(e.getMessage());
        }
    }

    /** TLS for one listener, its files read and checked now: unusable files refuse the start. */
    private Optional<ListenerTls> startTls(String listener, Optional<TlsSettings> settings, Duration handshake) {
        if (settings.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ListenerTls.start(listener, settings.get(), handshake, metrics.registry()));
        } catch (TlsFileException e) {
            throw new StartRefusedException("server." + (listener.equals("proxy") ? "tls" : "admin_tls") + ": "
                    + e.getMessage());
        }
    }

    /**
     * Refuses an admin listener (purge, stats, reload) reachable from the network without a token, before anything
     * is bound (the loader refuses such a file already; a policy built in code meets the same check); warns about a
     * proxy reachable from the network that asks for no API key.
     */
    private static void checkExposure(Policy policy) {
        Optional<String> exposed = AdminExposure.problem(policy.server());
        if (exposed.isPresent()) {
            throw new StartRefusedException("server.admin_host " + exposed.get());
        }
        openProxyWarning(policy).ifPresent(log::warn);
    }

    /** Set when the proxy is reachable from the network and asks for no API key: an open proxy to the backends. */
    static Optional<String> openProxyWarning(Policy policy) {
        ServerSettings server = policy.server();
        if (policy.authRequired() || AdminExposure.isLoopback(server.host())) {
            return Optional.empty();
        }
        return Optional.of("the proxy listens on " + server.host() + " (not loopback) and the policy has no tenants:"
                + " anyone who can reach port " + server.port() + " can use the backends without an API key");
    }

    /** Binds both listeners; ports 0 pick free ones (see {@link #port()}). The policy is never reloaded. */
    public static Gateway start(Policy policy) throws InterruptedException {
        return new Gateway(policy, Optional.empty(), Optional.empty());
    }

    /** For tests: as {@link #start(Policy)}, with every span exported to {@code spans} as it ends. */
    static Gateway startTraced(Policy policy, SpanExporter spans) throws InterruptedException {
        return new Gateway(policy, Optional.empty(), Optional.of(spans));
    }

    /**
     * As {@link #start(Policy)}, with {@code policy} read from {@code file}, which is watched: a valid change is
     * applied live, an invalid one refused (see {@link #reload()}).
     */
    public static Gateway start(Policy policy, Path file) throws InterruptedException {
        return new Gateway(policy, Optional.of(file), Optional.empty());
    }

    /** Reloads the policy file now ({@code SIGHUP}); the outcome is logged and counted. */
    public void reload() {
        reloader.reloadOnSignal();
    }

    /** The policy generation serving new requests: 1 at start, one more for each applied reload. */
    public long policyGeneration() {
        return reloader.current().number();
    }

    /** The network transport its listeners and clients run on. */
    public Transport transport() {
        return transport;
    }

    public int port() {
        return ((InetSocketAddress) proxyChannel.localAddress()).getPort();
    }

    public int adminPort() {
        return ((InetSocketAddress) adminChannel.localAddress()).getPort();
    }

    /** The policy the gateway started with. */
    public Policy policy() {
        return policy;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /** The exact store, for tests that need to reach behind the HTTP interface. */
    CacheStore cacheStore() {
        return store;
    }

    private void closeCaches() {
        store.close();
        if (fleet != null) {
            fleet.close();
        }
        if (semantic != null) {
            semantic.close();
        }
    }

    /**
     * Stops accepting connections, lets requests in flight finish for up to {@code grace}, then
     * closes everything. Answers given while draining carry {@code Connection: close}.
     */
    public synchronized void shutdown(Duration grace) {
        if (closed) {
            return;
        }
        closed = true;
        reloader.paths().startDraining();
        proxyChannel.close().syncUninterruptibly();
        long deadline = ticker.nanos() + grace.toNanos();
        int inFlight;
        while ((inFlight = metrics.inFlight()) > 0 && ticker.nanos() < deadline) {
            try {
                Thread.sleep(20); // a shutdown thread, never an event loop
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (inFlight > 0) {
            log.warn("shutdown: {} requests still in flight after {}; closing them", inFlight, grace);
        }
        reloader.close();
        admissionTick.cancel(false);
        statusSample.cancel(false);
        adminChannel.close().syncUninterruptibly();
        proxyTls.ifPresent(ListenerTls::close);
        adminTls.ifPresent(ListenerTls::close);
        clientChannels.close().awaitUninterruptibly();
        upstream.close();
        closeCaches();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        adminGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        telemetry.close(); // after the last exchange finished: its log line and spans are flushed
        metrics.close();
        log.info("cachegate stopped");
    }

    @Override
    public void close() {
        shutdown(policy.server().shutdownGrace());
    }
}
