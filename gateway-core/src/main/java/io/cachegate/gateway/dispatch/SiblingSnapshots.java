package io.cachegate.gateway.dispatch;

import io.cachegate.kv.KvEventSubscriber;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches a backend's KV index from sibling gateways ({@code GET /admin/kv-index?backend=NAME} on their admin
 * port, with this gateway's admin token, which a fleet shares), the first that answers. Runs on the KV subscriber's
 * thread, never on an event loop; each sibling gets 2 s.
 */
final class SiblingSnapshots implements KvEventSubscriber.SnapshotSource {

    private static final Logger log = LoggerFactory.getLogger(SiblingSnapshots.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Map<String, List<URI>> siblings;
    private final Optional<String> adminToken;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    SiblingSnapshots(Map<String, List<URI>> siblings, Optional<String> adminToken) {
        this.siblings = Map.copyOf(siblings);
        this.adminToken = adminToken;
    }

    @Override
    public Optional<byte[]> fetch(String backend) {
        for (URI sibling : siblings.getOrDefault(backend, List.of())) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(sibling + "/admin/kv-index?backend="
                    + URLEncoder.encode(backend, StandardCharsets.UTF_8))).timeout(TIMEOUT).GET();
            adminToken.ifPresent(t -> request.header("Authorization", "Bearer " + t));
            try {
                HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                if (response.statusCode() == 200) {
                    return Optional.of(response.body());
                }
                log.warn("KV index of backend {} from {}: HTTP {}", backend, sibling, response.statusCode());
            } catch (java.io.IOException e) {
                log.warn("KV index of backend {} from {}: {}", backend, sibling, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
