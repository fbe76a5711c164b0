package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.config.PolicyLoader;
import io.cachegate.gateway.Gateway;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's request sampling feeds {@code cachegate analyze}: a gateway with {@code sample_requests.rate: 1}
 * writes every request it parses, redacted, and the analyzer reads that file back with the true repeat share.
 */
class SampledRequestsIT {

    @TempDir
    Path dir;

    @Test
    void sampledFile_isReadByTheAnalyzer() throws Exception {
        Path sample = dir.resolve("sample.jsonl");
        HttpClient client = HttpClient.newHttpClient();
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(0).withTpotMs(0))) {
            Gateway gateway = Gateway.start(PolicyLoader.withEnvironment(Map.<String, String>of()::get).parse("""
                    server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
                    backends:
                      - {name: main, urls: ["%s"], model_version: "llama@v1"}
                    tenants:
                      - {id: acme, api_keys: [acme-key]}
                    cache:
                      exact: {store: memory, ttl: 1h}
                    log: {access: off, sample_requests: {rate: 1, file: "%s"}}
                    """.formatted(sim.baseUrl(), sample.toString().replace('\\', '/')), "sample.yaml"));
            try {
                // Six requests over three prompts: each prompt twice, so half are exact repeats.
                for (String prompt : List.of("one", "two", "three", "one", "two", "three")) {
                    HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
                            .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer acme-key")
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"llama-3.1-8b\",\"temperature\":0,"
                                    + "\"messages\":[{\"role\":\"user\",\"content\":\"prompt " + prompt
                                    + ", reply to me@example.com\"}]}"))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(answer.statusCode()).isEqualTo(200);
                }
            } finally {
                gateway.close(); // flushes the sampled lines
            }
        }
        assertThat(Files.readString(sample)).contains("[REDACTED:email]").doesNotContain("me@example.com");

        CliTest.Run run = CliTest.run("analyze", sample.toString(), "--json", "--no-semantic");

        assertThat(run.exit()).isZero();
        JsonNode doc = new ObjectMapper().readTree(run.out());
        assertThat(doc.path("requests").asInt()).isEqualTo(6);
        assertThat(doc.path("malformed").path("count").asInt()).isZero();
        assertThat(doc.path("overall").path("exact_repeat_share").asDouble()).isEqualTo(0.5);
        assertThat(doc.path("groups").get(0).path("tenant").asText()).isEqualTo("acme");
    }
}
