package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.config.Backend;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model version that namespaces cache entries: a backend's {@code model_version} pin, else
 * what its replicas report in {@code GET /v1/models} (re-read by every health probe). A discovered
 * version is {@code <id>@<12 hex>}, a hash of the model card's id, root, parent and any revision:
 * a redeploy with other weights or a LoRA adapter with another path is a new namespace. When the
 * replicas of a backend disagree (a rolling deploy, a model swap under way) or none has reported yet,
 * there is no version and the request bypasses the cache: an answer is never filed under a model that
 * may not have made it, nor an old model's answer served once a replica reports a new one. Each change
 * of a model's agreed version (new version, replicas disagreeing) is logged once.
 */
public final class ModelVersions {

    private static final Logger LOG = LoggerFactory.getLogger(ModelVersions.class);
    /** What {@link #lastLogged} holds for a model whose replicas report different versions. */
    private static final String DISAGREE = "(replicas disagree)";
    /** What {@link #lastLogged} holds for a model some replicas do not list. */
    private static final String PARTIAL = "(not listed by every replica)";

    /** backend name -> replica URL -> model id -> version */
    private final Map<String, Map<URI, Map<String, String>>> discovered = new ConcurrentHashMap<>();
    /** backend name + " " + model id -> the agreed version, {@link #DISAGREE} or {@link #PARTIAL}, as last logged */
    private final Map<String, String> lastLogged = new ConcurrentHashMap<>();

    /** The version to key {@code model} on when served by {@code backend}, or empty to bypass the cache. */
    public Optional<String> versionFor(Backend backend, String model) {
        if (backend.modelVersion().isPresent()) {
            return backend.modelVersion();
        }
        return discoveredVersion(backend.name(), model);
    }

    /**
     * Whether {@code backend}'s replicas report different versions of {@code model} (so {@link #versionFor} is
     * empty because of a rolling deploy or model swap, not because nothing has been reported).
     */
    public boolean replicasDisagree(Backend backend, String model) {
        if (backend.modelVersion().isPresent()) {
            return false;
        }
        return disagree(backend.name(), model);
    }

    private boolean disagree(String backend, String model) {
        Map<URI, Map<String, String>> replicas = discovered.getOrDefault(backend, Map.of());
        return replicas.values().stream().map(models -> models.get(model)).filter(Objects::nonNull).distinct()
                .count() > 1;
    }

    private Optional<String> discoveredVersion(String backend, String model) {
        Map<URI, Map<String, String>> replicas = discovered.get(backend);
        if (replicas == null || replicas.isEmpty()) {
            return Optional.empty();
        }
        String agreed = null;
        for (Map<String, String> models : replicas.values()) {
            String version = models.get(model);
            if (version == null || (agreed != null && !agreed.equals(version))) {
                return Optional.empty();
            }
            agreed = version;
        }
        return Optional.ofNullable(agreed);
    }

    /** Records a replica's model list ({@code GET /v1/models} body). */
    public void update(String backend, URI url, JsonNode modelList) {
        Map<String, String> versions = new HashMap<>();
        for (JsonNode card : modelList.path("data")) {
            String id = card.path("id").asText("");
            if (!id.isEmpty()) {
                versions.put(id, versionOf(card));
            }
        }
        discovered.computeIfAbsent(backend, b -> new ConcurrentHashMap<>()).put(url, Map.copyOf(versions));
        versions.keySet().forEach(model -> logChange(backend, model));
    }

    /** Logs when a model's agreed version changes: the moment its cache namespace moves (or the cache is bypassed). */
    private void logChange(String backend, String model) {
        String now = discoveredVersion(backend, model).orElse(disagree(backend, model) ? DISAGREE : PARTIAL);
        String before = lastLogged.put(backend + " " + model, now);
        if (before == null || before.equals(now)) {
            return;
        }
        if (now.equals(DISAGREE)) {
            LOG.info("backend {}: model {} has different versions on different replicas; its requests bypass the "
                    + "cache until they agree", backend, model);
        } else if (now.equals(PARTIAL)) {
            LOG.info("backend {}: model {} is not listed by every replica; its requests bypass the cache until it is",
                    backend, model);
        } else {
            LOG.info("backend {}: model {} is now version {} (was {}); its cache namespace is the new version's",
                    backend, model, now, before);
        }
    }

    /** A replica stopped answering: its old list no longer speaks for the backend. */
    public void forget(String backend, URI url) {
        Map<URI, Map<String, String>> replicas = discovered.get(backend);
        if (replicas != null) {
            replicas.remove(url);
        }
    }

    /** backend -> model -> version, as currently agreed (for /admin/stats). */
    public Map<String, Map<String, String>> snapshot(Iterable<Backend> backends) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (Backend backend : backends) {
            Map<String, String> models = new LinkedHashMap<>();
            Map<URI, Map<String, String>> replicas = discovered.getOrDefault(backend.name(), Map.of());
            replicas.values().stream().flatMap(m -> m.keySet().stream()).distinct().sorted()
                    .forEach(model -> models.put(model, versionFor(backend, model).orElse(DISAGREE)));
            backend.modelVersion().ifPresent(pin -> models.put("*", pin));
            out.put(backend.name(), models);
        }
        return out;
    }

    static String versionOf(JsonNode card) {
        String id = card.path("id").asText("");
        StringBuilder identity = new StringBuilder();
        for (String field : new String[] {"id", "root", "parent", "revision", "version"}) {
            JsonNode value = card.get(field);
            identity.append(field).append('=').append(value == null || value.isNull() ? "" : value.asText()).append('\n');
        }
        return id + "@" + sha256Hex(identity.toString()).substring(0, 12);
    }

    private static String sha256Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(64);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
