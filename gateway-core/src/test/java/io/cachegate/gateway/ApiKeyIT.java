package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.ApiKey;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Tenant keys written as sha256: digests, as plain keys, or with labels: each authenticates, none is ever shown. */
class ApiKeyIT {

    private static final String CHAT =
            "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"max_tokens\":4}";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server: {admin_token: admin-secret}
            tenants:
              - id: acme
                api_keys: ["%s", sk-plain-acme, { key: "%s", labels: [hr] }]
            """.formatted(ApiKey.hash("sk-hashed-acme"), ApiKey.hash("sk-labelled-acme")));

    @Test
    void sha256Key_authenticates() throws Exception {
        assertThat(chat("sk-hashed-acme").statusCode()).isEqualTo(200);
        assertThat(chat("sk-labelled-acme").statusCode()).isEqualTo(200);
    }

    @Test
    void plainKey_stillAuthenticates() throws Exception {
        assertThat(chat("sk-plain-acme").statusCode()).isEqualTo(200);
    }

    @Test
    void digestAsKey_or_wrongKey_is401_withoutEchoingIt() throws Exception {
        String digest = ApiKey.hash("sk-hashed-acme");
        HttpResponse<String> asDigest = chat(digest);
        HttpResponse<String> wrong = chat("sk-wrong-guess");

        assertThat(asDigest.statusCode()).isEqualTo(401);
        assertThat(asDigest.body()).contains("invalid_api_key").doesNotContain(digest.substring(7));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("sk-wrong-guess");
    }

    @Test
    void adminStats_showNoKeyNorDigest() throws Exception {
        chat("sk-plain-acme");
        HttpResponse<String> stats = RawHttp.get(fixture.adminPort(), "/admin/stats",
                "Authorization", "Bearer admin-secret");

        assertThat(stats.statusCode()).isEqualTo(200);
        assertThat(stats.body()).doesNotContain("sk-").doesNotContain(ApiKey.hash("sk-plain-acme").substring(7))
                .doesNotContain(ApiKey.hash("sk-hashed-acme").substring(7));
    }

    private static HttpResponse<String> chat(String key) throws Exception {
        return RawHttp.post(fixture.port(), "/v1/chat/completions", CHAT, "Authorization", "Bearer " + key);
    }
}
