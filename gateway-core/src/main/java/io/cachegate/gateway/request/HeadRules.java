package io.cachegate.gateway.request;

import io.cachegate.config.Credential;
import io.cachegate.config.Policy;
import io.cachegate.config.ServerSettings;
import io.cachegate.config.Tenant;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.Optional;

/**
 * The checks a request head alone decides (path, API key, method), written once: the stages make them on the
 * whole request, and the front door makes them on the head before any of the body is read, so a client without
 * a key cannot make the gateway hold its body. Each failure is an {@link ApiException} with the kind to answer.
 */
public final class HeadRules {

    private HeadRules() {
    }

    /** The API a request target calls: 404 outside {@code /v1}, 400 for a query string on a cached endpoint. */
    public static Endpoint endpoint(String uri) {
        String path = path(uri);
        Endpoint endpoint = Endpoint.forPath(path);
        if (endpoint == null) {
            throw new ApiException(ErrorKind.NOT_FOUND, "Unknown path " + path + "; the API lives under /v1");
        }
        if (path.length() < uri.length() && endpoint != Endpoint.PASSTHROUGH && endpoint != Endpoint.MODELS) {
            // The cache key does not cover a query string while a miss would forward it.
            throw new ApiException(ErrorKind.INVALID_REQUEST,
                    "A query string is not accepted on " + path + "; send every parameter in the body");
        }
        return endpoint;
    }

    /**
     * Who sends the request: a verified TLS client certificate ({@code fingerprint}, null without one) that a
     * tenant lists under {@code client_certificates} names that tenant without a key (and grants no labels);
     * otherwise, or when a key comes with it, the key decides (see {@link #credential}), and a key of another
     * tenant than the certificate's is 401.
     */
    public static Caller caller(Policy policy, String fingerprint, String authorization) {
        Optional<Tenant> byCertificate = policy.tenantForCertificate(fingerprint);
        if (byCertificate.isPresent() && authorization == null) {
            return new Caller(byCertificate.get().id(), List.of());
        }
        Credential credential = credential(policy, authorization);
        if (byCertificate.isPresent() && !byCertificate.get().id().equals(credential.tenant().id())) {
            throw new ApiException(ErrorKind.INVALID_API_KEY,
                    "The API key and the TLS client certificate belong to different tenants.");
        }
        return new Caller(credential.tenant().id(), credential.key().labels());
    }

    /** The tenant a request authenticated as, and the access labels it holds. */
    public record Caller(String tenant, List<String> labels) {
    }

    /** The tenant and key named by the {@code Authorization} header: 401 without a known key; never quotes it. */
    public static Credential credential(Policy policy, String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new ApiException(ErrorKind.INVALID_API_KEY,
                    "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.");
        }
        Optional<Credential> credential = policy.credential(authorization.substring(7).trim());
        if (credential.isEmpty()) {
            throw new ApiException(ErrorKind.INVALID_API_KEY, "Incorrect API key provided.");
        }
        return credential.get();
    }

    /**
     * Whether the endpoint takes this method: {@code GET /v1/models}, {@code POST} for the others (405); another
     * {@code /v1} path only when {@code server.passthrough} lists the path and method (404: it would be forwarded
     * with the operator's API key).
     */
    public static void method(Endpoint endpoint, HttpMethod method, String uri, ServerSettings server) {
        if (endpoint == Endpoint.PASSTHROUGH) {
            String path = path(uri);
            if (!server.passthroughFor(path).map(p -> p.allows(method.name())).orElse(false)) {
                throw new ApiException(ErrorKind.NOT_FOUND, "Unknown path " + method.name() + " " + path
                        + "; other /v1 paths are forwarded only when server.passthrough lists them");
            }
            return;
        }
        HttpMethod expected = endpoint == Endpoint.MODELS ? HttpMethod.GET : HttpMethod.POST;
        if (!method.equals(expected)) {
            throw new ApiException(ErrorKind.METHOD_NOT_ALLOWED,
                    "Method " + method + " is not allowed here; use " + expected);
        }
    }

    /**
     * A body the endpoint parses must be JSON: a {@code Content-Type} other than {@code application/json} (or a
     * {@code +json} type) is 415; none at all is read as JSON, as OpenAI's API does.
     */
    public static void contentType(Endpoint endpoint, String contentType) {
        if (contentType == null || endpoint == Endpoint.PASSTHROUGH || endpoint == Endpoint.MODELS) {
            return;
        }
        int semicolon = contentType.indexOf(';');
        String media = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim()
                .toLowerCase(java.util.Locale.ROOT);
        if (!media.equals("application/json") && !(media.startsWith("application/") && media.endsWith("+json"))) {
            throw new ApiException(ErrorKind.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type must be application/json on " + endpoint.path());
        }
    }

    private static String path(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }
}
