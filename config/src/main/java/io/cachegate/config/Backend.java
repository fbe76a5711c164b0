package io.cachegate.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A pool of OpenAI-compatible model servers serving the same models.
 *
 * @param urls base URLs with no path and no trailing slash, e.g. {@code http://10.0.0.5:8000}
 * @param models globs of the model names this pool serves ({@code *} and {@code ?})
 * @param modelVersion a pinned model version for cache keys; empty means read it from {@code /v1/models}
 */
public record Backend(String name, List<URI> urls, List<String> models, Optional<String> modelVersion,
                      int maxConcurrency, int maxConnectionsPerUrl, Timeouts timeouts, Optional<String> apiKey) {

    public Backend {
        Objects.requireNonNull(name, "name");
        urls = List.copyOf(urls);
        models = List.copyOf(models);
        Objects.requireNonNull(modelVersion, "modelVersion");
        Objects.requireNonNull(timeouts, "timeouts");
        Objects.requireNonNull(apiKey, "apiKey");
    }

    /** True when one of the model globs matches this model name. */
    public boolean serves(String model) {
        for (String glob : models) {
            if (Globs.matches(glob, model)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        // The upstream API key must not end up in logs.
        return "Backend[name=" + name + ", urls=" + urls + ", models=" + models + ", modelVersion=" + modelVersion
                + ", maxConcurrency=" + maxConcurrency + ", maxConnectionsPerUrl=" + maxConnectionsPerUrl
                + ", timeouts=" + timeouts + ", apiKey=" + (apiKey.isPresent() ? "<redacted>" : "none") + "]";
    }
}
