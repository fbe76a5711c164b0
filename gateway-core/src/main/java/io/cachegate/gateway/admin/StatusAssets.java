package io.cachegate.gateway.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * The status page's files, read from the jar once: the page and its script (this package's resources) and uPlot
 * (its WebJar). They hold no data — the page fetches {@code /admin/series} and {@code /admin/stats}, which need the
 * admin token — so they are served without one.
 */
final class StatusAssets {

    /** A file and its content type. */
    record Asset(byte[] bytes, String contentType) {
    }

    private static final String UPLOT = "/META-INF/resources/webjars/uplot/1.6.30/dist/";
    private static final Map<String, Asset> ASSETS = Map.of(
            "/", load("status.html", "text/html; charset=utf-8"),
            "/status/status.js", load("status.js", "text/javascript; charset=utf-8"),
            "/status/uPlot.iife.min.js", load(UPLOT + "uPlot.iife.min.js", "text/javascript; charset=utf-8"),
            "/status/uPlot.min.css", load(UPLOT + "uPlot.min.css", "text/css; charset=utf-8"));

    private StatusAssets() {
    }

    static Optional<Asset> find(String path) {
        return Optional.ofNullable(ASSETS.get(path));
    }

    private static Asset load(String resource, String contentType) {
        try (InputStream in = StatusAssets.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new Asset(in.readAllBytes(), contentType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
