package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The parts of {@code bench exact-cache} that need neither nginx nor child processes. */
class BenchExactCacheCommandTest {

    @Test
    void benchHelp_listsExactCacheScenario() {
        BenchCommandTest.Run run = BenchCommandTest.run("--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("exact-cache");
    }

    @Test
    void exactCacheHelp_namesItsOptions() {
        BenchCommandTest.Run run = BenchCommandTest.run("exact-cache", "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("--stores", "--rate", "--rounds", "--connections", "--child-jvm-opts", "--json",
                "--api");
    }

    @Test
    void nginxConfig_cachesPostsKeyedOnTheBodyInMemory() {
        String conf = NginxReference.config(Path.of("/tmp/x"), 18080, 18000);
        assertThat(conf)
                .contains("daemon off;", "master_process on;", "worker_processes auto;")
                .contains("proxy_cache_key \"$request_uri|$request_body\";")
                .contains("proxy_cache_methods POST;")
                .contains("proxy_cache_path /tmp/x/cache ", "keys_zone=bench:")
                .contains("client_body_buffer_size 4m;", "client_max_body_size 4m;")
                .contains("listen 127.0.0.1:18080;", "server 127.0.0.1:18000;", "keepalive 64;")
                .contains("proxy_http_version 1.1;", "proxy_set_header Connection \"\";")
                .contains("add_header X-Cache-Status $upstream_cache_status")
                .contains("pid /tmp/x/nginx.pid;", "error_log /tmp/x/error.log");
    }

    @Test
    void requestBodies_areDistinctDeterministicAndWithoutMaxTokens() {
        List<byte[]> bodies = BenchExactCacheCommand.requestBodies(100);
        Set<String> distinct = new HashSet<>();
        for (byte[] b : bodies) {
            String body = new String(b, StandardCharsets.UTF_8);
            assertThat(body).contains("\"temperature\":0").doesNotContain("max_tokens").doesNotContain("\"stream\"");
            distinct.add(body);
        }
        assertThat(distinct).hasSize(100);
        assertThat(BenchExactCacheCommand.requestBodies(100).get(7)).isEqualTo(bodies.get(7));
    }

    @Test
    void requestBodies_responses_askTheSameQuestionsAsResponsesApiRequests() {
        List<byte[]> chat = BenchExactCacheCommand.requestBodies(10, false);
        List<byte[]> responses = BenchExactCacheCommand.requestBodies(10, true);

        String body = new String(responses.get(3), StandardCharsets.UTF_8);
        assertThat(body).contains("\"temperature\":0", "\"instructions\":\"You are a concise assistant.\"",
                "\"input\":\"Question 3: explain").doesNotContain("messages").doesNotContain("max_output_tokens");
        assertThat(new String(chat.get(3), StandardCharsets.UTF_8)).contains("Question 3: explain");
    }
}
