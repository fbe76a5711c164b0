package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static io.cachegate.gateway.ConfusableQuestions.RESET;
import static io.cachegate.gateway.ConfusableQuestions.RESET_AGAIN;
import static io.cachegate.gateway.ConfusableQuestions.RESET_CLOSE;
import static io.cachegate.gateway.ConfusableQuestions.RESET_OTHER;
import static io.cachegate.gateway.ConfusableQuestions.RESET_OTHER_AGAIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.semantic.FakeQdrantServer;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fleet's shared evidence with each gateway in a JVM of its own ({@link GatewayMain}), as deployed: one gateway's
 * demotion reaches the other process through Redis; the auditing gateway is then killed (SIGKILL, no goodbye) and a
 * gateway started in its place learns the demotion from the stream, while the peer reads on without a failure.
 */
class FleetEvidenceProcessIT {

    private static final String COLLECTION = "process" + nonce();
    private static BackendSimulator sim;
    private static FakeQdrantServer qdrant;
    private static Path dir;
    private static final List<Process> processes = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("cachegate-fleet-process");
        sim = BackendSimulator.start(SimulatorOptions.defaults().withAnswers(ConfusableQuestions.answers()));
        qdrant = FakeQdrantServer.listening();
    }

    @AfterAll
    static void stop() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Closing.all(qdrant, sim);
    }

    /** A gateway process; {ports: proxy, admin}. */
    private record Running(Process process, int port, int adminPort) {
    }

    private static Running gateway(String name, String audit) throws Exception {
        Path policy = dir.resolve(name + ".yaml");
        Files.writeString(policy, FleetEvidenceIT.policy(sim, qdrant, COLLECTION, audit, "share_evidence: true", ""));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                GatewayMain.class.getName(), policy.toString())
                .redirectError(dir.resolve(name + ".log").toFile()).start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("ready ")) {
            // the gateway's own output before it listens
        }
        assertThat(line).as("%s started (see %s)", name, dir.resolve(name + ".log")).isNotNull();
        String[] ports = line.split(" ");
        Running running = new Running(p, Integer.parseInt(ports[1]), Integer.parseInt(ports[2]));
        assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(running, "cachegate_cache_store_available") == 1))
                .as("%s connected to Redis", name).isTrue();
        return running;
    }

    @Test
    void aDemotionCrossesProcesses_andOutlivesTheGatewayThatMadeIt() throws Exception {
        String system = "process fleet bot " + nonce();
        Running auditor = gateway("auditor", "{rate: 1, per_second: 1000, answer_similarity: 1, on_wrong: demote}");
        Running peer = gateway("peer", "{rate: 0}");

        int points = qdrant.pointCount(COLLECTION);
        HttpResponse<String> first = ask(auditor, system, RESET);
        assertThat(xCache(first)).isEqualTo("MISS");
        String firstId = header(first, "X-Request-Id");
        assertThat(Poll.until(Duration.ofSeconds(10), () -> qdrant.pointCount(COLLECTION) > points)).isTrue();
        assertThat(header(ask(peer, system, RESET_OTHER), "X-Cache-Layer"))
                .as("the peer serves the near entry (a wrong answer; it audits nothing)").isEqualTo("semantic");
        assertThat(header(ask(auditor, system, RESET_OTHER_AGAIN), "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(Poll.until(Duration.ofSeconds(20),
                () -> metric(auditor, "cachegate_semantic_entries_demoted_total") >= 1)).isTrue();
        assertThat(Poll.until(Duration.ofSeconds(10), () -> shared(peer, "received") >= 2))
                .as("the peer process read the verdict and the demotion").isTrue();

        auditor.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: nothing more is sent
        Running replacement = gateway("replacement", "{rate: 0}");
        assertThat(Poll.until(Duration.ofSeconds(10), () -> shared(replacement, "received") >= 2))
                .as("a gateway started in its place reads the stream from its start").isTrue();
        assertThat(xCache(ask(replacement, system, RESET_CLOSE))).as("the demoted entry is no one's hit")
                .isEqualTo("MISS");
        HttpResponse<String> later = ask(peer, system, RESET_AGAIN);
        assertThat(header(later, "X-Cache-Origin-Request-Id"))
                .as("the peer answers a paraphrase afresh or from another entry, never from the demoted one")
                .isNotEqualTo(firstId);
        for (Running r : List.of(peer, replacement)) {
            assertThat(shared(r, "failed") + shared(r, "dropped") + shared(r, "unreadable") + shared(r, "refused"))
                    .isZero();
        }
    }

    private static double shared(Running gw, String event) {
        return metric(gw, "cachegate_semantic_evidence_shared_total{event=\"" + event + "\"");
    }

    /** The sum of the samples whose line starts with {@code prefix} (a name, or a name and its first labels). */
    private static double metric(Running gw, String prefix) {
        try {
            double sum = 0;
            for (String line : RawHttp.get(gw.adminPort(), "/metrics").body().split("\n")) {
                if (line.startsWith(prefix + "{") || line.startsWith(prefix + " ") || prefix.contains("{")
                        && line.startsWith(prefix)) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        } catch (Exception e) {
            return 0;
        }
    }

    private static HttpResponse<String> ask(Running gw, String system, String question) throws Exception {
        String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]}";
        HttpResponse<String> response = RawHttp.post(gw.port(), CHAT, body, "Authorization", "Bearer acme-key");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }
}
