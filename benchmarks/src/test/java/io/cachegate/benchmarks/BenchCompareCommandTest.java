package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parts of {@code bench compare} that need neither nginx, wrk nor child processes. */
class BenchCompareCommandTest {

    @Test
    void benchHelp_listsCompare() {
        BenchCommandTest.Run run = BenchCommandTest.run("--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("compare");
    }

    @Test
    void compareHelp_namesItsOptions() {
        BenchCommandTest.Run run = BenchCommandTest.run("compare", "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("--connections", "--wrk-threads", "--skip", "--rounds", "--duration", "--json",
                "--redis", "--java", "--flame");
    }

    @Test
    void javaOption_labelsAndExecutables_parsedInOrder() {
        String java = ChildLauncher.currentJava();
        List<String> problems = new ArrayList<>();

        List<ChildJvm> jvms = ChildJvm.parse(List.of("17=" + java, "temurin-25= " + java), problems);

        assertThat(problems).isEmpty();
        assertThat(jvms).containsExactly(new ChildJvm("17", java), new ChildJvm("temurin-25", java));
        assertThat(jvms.get(0).version()).get().asString().contains(" version \"");
    }

    @Test
    void javaOption_everyBadItemNamed() {
        String java = ChildLauncher.currentJava();
        List<String> problems = new ArrayList<>();

        List<ChildJvm> jvms = ChildJvm.parse(List.of("/usr/bin/java", "a b=" + java, "25=" + java, "25=" + java,
                "x=/no/such/java"), problems);

        assertThat(jvms).containsExactly(new ChildJvm("25", java));
        assertThat(problems).hasSize(4);
        assertThat(problems.get(0)).contains("LABEL=PATH", "\"/usr/bin/java\"");
        assertThat(problems.get(1)).contains("\"a b=");
        assertThat(problems.get(2)).contains("the label 25 is given twice");
        assertThat(problems.get(3)).contains("--java x: /no/such/java is not an executable file");
    }

    @Test
    void compare_badJava_isAUsageErrorBeforeStartingAnything() {
        BenchCommandTest.Run run = BenchCommandTest.run("compare", "--java", "25=/no/such/java");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--java 25: /no/such/java is not an executable file");
    }

    @Test
    void compare_flameWithEveryProfiledTargetSkipped_isAUsageError(@TempDir Path dir) throws Exception {
        BenchCommandTest.Run run = BenchCommandTest.run("compare", "--flame", dir.toString(), "--skip",
                "cachegate-memory,cachegate-redis,cachegate-off");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--flame profiles cachegate-memory, cachegate-redis and cachegate-off");

        Path file = Files.writeString(dir.resolve("a-file"), "x");
        run = BenchCommandTest.run("compare", "--flame", file.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("is not a directory");
    }

    @Test
    void targetNames_carryTheJvmLabel_onlyWhenJavaGivesOne() {
        assertThat(BenchCompareCommand.targetName("cachegate-memory", new ChildJvm("25", "/j")))
                .isEqualTo("cachegate-memory@25");
        assertThat(BenchCompareCommand.targetName("cachegate-off", new ChildJvm("", "/j"))).isEqualTo("cachegate-off");
        // The family, and so the capabilities line and the failure rule, stay those of Cachegate.
        assertThat(new CompareTarget("cachegate-memory@25", CompareTarget.Kind.HIT, URI.create("http://127.0.0.1:1"),
                Map.of(), "x-cache", null).family()).isEqualTo("cachegate");
    }

    @Test
    void flameFiles_hitsAndProxy_labelledWhenSeveralJvms() {
        assertThat(BenchCompareCommand.flameFile("cachegate-memory", false)).contains("hit-memory.html");
        assertThat(BenchCompareCommand.flameFile("cachegate-off", false)).contains("proxy.html");
        assertThat(BenchCompareCommand.flameFile("cachegate-memory@25", true)).contains("hit-memory@25.html");
        assertThat(BenchCompareCommand.flameFile("cachegate-off@17", true)).contains("proxy@17.html");
        assertThat(BenchCompareCommand.flameFile("cachegate-memory@25", false)).contains("hit-memory.html");
        assertThat(BenchCompareCommand.flameFile("cachegate-redis@25", true)).contains("hit-redis@25.html");
        assertThat(BenchCompareCommand.flameFile("cachegate-tiered", false)).isEmpty();
        assertThat(BenchCompareCommand.flameFile(CompareTable.NGINX_CACHE, false)).isEmpty();
    }

    @Test
    void table_twoJvms_eachAgainstNginxOfTheSameRound() {
        Map<String, List<CompareTable.Sample>> samples = new LinkedHashMap<>();
        samples.put("cachegate-memory@17", List.of(sample(30_000, 1.0, 5.0, 0), sample(15_000, 2.0, 6.0, 0)));
        samples.put("cachegate-memory@25", List.of(sample(33_000, 1.0, 5.0, 0), sample(18_000, 2.0, 6.0, 0)));
        samples.put(CompareTable.NGINX_CACHE, List.of(sample(30_000, 0.9, 2.5, 0), sample(15_000, 1.8, 3.0, 0)));

        List<CompareTable.Row> rows = new CompareTable(samples).rows();

        assertThat(rows.get(0).vsCache()).isCloseTo(1.0, within(1e-9));
        assertThat(rows.get(1).vsCache()).isCloseTo(1.15, within(1e-9)); // 1.1, 1.2
        List<CompareTarget> targets = List.of(
                new CompareTarget("cachegate-memory@17", CompareTarget.Kind.HIT, URI.create("http://127.0.0.1:1"),
                        Map.of(), "x-cache", null),
                new CompareTarget("cachegate-memory@25", CompareTarget.Kind.HIT, URI.create("http://127.0.0.1:2"),
                        Map.of(), "x-cache", null));
        String text = new CompareReport(targets, Map.of("wrk", new CompareTable(samples)), Map.of(), Map.of(), 1, 1,
                1, 1, 2, Duration.ofSeconds(1)).toText();
        assertThat(text).contains("cachegate-memory@17 hit", "cachegate-memory@25 hit", "1.15");
    }

    @Test
    void compare_zeroConnections_isRefusedBeforeStartingAnything() {
        BenchCommandTest.Run run = BenchCommandTest.run("compare", "--connections", "0");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--connections");
    }

    @Test
    void nginxConfig_threeSites_cacheKeyedOnTheBody_plainProxy_constant() {
        byte[] answer = "{\"a\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        String conf = NginxReference.config(Path.of("/tmp/n"), 18000, List.of(
                new NginxReference.Site(NginxReference.Kind.CACHE, 18081),
                new NginxReference.Site(NginxReference.Kind.PROXY, 18082),
                new NginxReference.Site(NginxReference.Kind.CONSTANT, 18083)), answer);

        assertThat(conf).contains("listen 127.0.0.1:18081;", "listen 127.0.0.1:18082;", "listen 127.0.0.1:18083;")
                .contains("client_body_buffer_size 4m;", "client_max_body_size 4m;", "server 127.0.0.1:18000;")
                .contains("return 200 '{\"a\":\"x\"}';", "default_type application/json;");
        // The cache lines belong to the first site only: the proxy and the constant sites cache nothing.
        assertThat(conf.split("proxy_cache_key \"\\$request_uri\\|\\$request_body\";", -1)).hasSize(2);
        assertThat(conf.split("proxy_cache_methods POST;", -1)).hasSize(2);
        assertThat(conf.split("proxy_pass http://sim;", -1)).hasSize(3);
        String proxySite = conf.substring(conf.indexOf("listen 127.0.0.1:18082;"), conf.indexOf("listen 127.0.0.1:18083;"));
        assertThat(proxySite).contains("proxy_set_header Connection \"\";").doesNotContain("proxy_cache");
    }

    @Test
    void nginxQuoted_keepsEveryByte_backslashQuoteAndDollarEscaped() {
        String json = "{\"content\":\"it's $5\\nnext\"}";
        String quoted = NginxReference.quoted(json.getBytes(StandardCharsets.UTF_8));
        // nginx reads \\ as one backslash (a bare \n would become a newline), \' as a quote; $ would start a variable.
        assertThat(quoted).isEqualTo("{\"content\":\"it\\'s ${cachegate_dollar}5\\\\nnext\"}");
    }

    @Test
    void nginxQuoted_tooLongForOneToken_isRefused() {
        assertThatThrownBy(() -> NginxReference.quoted(new byte[NginxReference.MAX_CONSTANT_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nginx takes at most");
    }

    @Test
    void wrkScript_postsTheBodyWithTheHeaders_andPrintsTheResultLine() {
        String lua = Wrk.script("/v1/chat/completions", "{\"q\":\"a]]b\"}".getBytes(StandardCharsets.UTF_8),
                Map.of("x-portkey-provider", "openai"));
        assertThat(lua).contains("wrk.method = \"POST\"", "wrk.path = [[/v1/chat/completions]]",
                "wrk.body = [=[{\"q\":\"a]]b\"}]=]", "wrk.headers[\"Content-Type\"] = \"application/json\"",
                "wrk.headers[ [[x-portkey-provider]] ] = [[openai]]", "done = function(summary, latency, requests)",
                "latency:percentile(99)");
    }

    @Test
    void wrkLongString_picksALevelTheTextCannotClose() {
        assertThat(Wrk.longString("plain".getBytes(StandardCharsets.UTF_8))).isEqualTo("[[plain]]");
        assertThat(Wrk.longString("a]]b]=]c".getBytes(StandardCharsets.UTF_8))).isEqualTo("[==[a]]b]=]c]==]");
        assertThat(Wrk.longString("ends]".getBytes(StandardCharsets.UTF_8))).isEqualTo("[=[ends]]=]");
        assertThat(Wrk.longString("\nfirst".getBytes(StandardCharsets.UTF_8))).isEqualTo("[[\n\nfirst]]");
    }

    @Test
    void wrkParse_readsTheDoneLine_amongWrksOwnOutput() {
        String out = """
                Running 5s test @ http://127.0.0.1:1234/v1/chat/completions
                  1 threads and 32 connections
                  Thread Stats   Avg      Stdev     Max   +/- Stdev
                    Latency     1.02ms  301.00us   9.87ms   90.00%
                  150000 requests in 5.00s, 180.00MB read
                  Non-2xx or 3xx responses: 10
                Requests/sec:  30000.00
                Transfer/sec:     36.00MB
                cachegate-wrk requests=150000 duration_us=5000000 p50_us=980 p99_us=2450 connect=0 read=2 write=0 status=10 timeout=1
                """;
        Wrk.Result r = Wrk.parse(out);
        assertThat(r.requests()).isEqualTo(150_000);
        assertThat(r.seconds()).isEqualTo(5.0);
        assertThat(r.p50Ms()).isEqualTo(0.98);
        assertThat(r.p99Ms()).isEqualTo(2.45);
        assertThat(r.socketErrors()).isEqualTo(3);
        assertThat(r.badStatus()).isEqualTo(10);
        assertThat(r.errors()).isEqualTo(13);
        assertThat(r.throughput()).isCloseTo(29_998, within(0.01));
    }

    @Test
    void wrkParse_noDoneLine_saysSo() {
        assertThatThrownBy(() -> Wrk.parse("unable to connect to 127.0.0.1:1 Connection refused"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no result line")
                .hasMessageContaining("Connection refused");
    }

    @Test
    void wrkCommand_oneThreadPerConnectionAtMost_wholeSeconds() {
        Wrk wrk = new Wrk("/usr/bin/wrk", 4);
        assertThat(wrk.command(URI.create("http://127.0.0.1:9/v1/chat/completions"), Path.of("/tmp/s.lua"), 2,
                Duration.ofMillis(1500))).containsExactly("/usr/bin/wrk", "-t", "2", "-c", "2", "-d", "2s",
                "--timeout", "10s", "-s", "/tmp/s.lua", "http://127.0.0.1:9/v1/chat/completions");
    }

    @Test
    void table_ratiosAreMediansOfPerRoundRatiosToNginxInTheSameRound() {
        Map<String, List<CompareTable.Sample>> samples = new LinkedHashMap<>();
        // Round 2 runs everything slower (a busy machine): the per-round ratio stays 1.2 for the memory store.
        samples.put("cachegate-memory", List.of(sample(36_000, 1.0, 5.0, 0), sample(18_000, 2.0, 6.0, 0),
                sample(30_000, 1.0, 4.0, 0)));
        samples.put(CompareTable.NGINX_CACHE, List.of(sample(30_000, 0.9, 2.5, 0), sample(15_000, 1.8, 3.0, 0),
                sample(25_000, 1.0, 2.0, 0)));
        samples.put(CompareTable.NGINX_PROXY, List.of(sample(20_000, 1.5, 4.0, 20_000), sample(10_000, 3.0, 8.0, 10_000),
                sample(20_000, 1.5, 4.0, 20_000)));
        samples.put(CompareTable.CEILING, List.of(sample(60_000, 0.5, 1.0, 0), sample(30_000, 1.0, 2.0, 0),
                sample(72_000, 0.4, 1.0, 0)));

        List<CompareTable.Row> rows = new CompareTable(samples).rows();

        CompareTable.Row memory = rows.get(0);
        assertThat(memory.target()).isEqualTo("cachegate-memory");
        assertThat(memory.throughput()).isEqualTo(30_000); // median of 36k, 18k, 30k
        assertThat(memory.vsCache()).isCloseTo(1.2, within(1e-9)); // 1.2, 1.2, 1.2
        assertThat(memory.vsProxy()).isCloseTo(1.8, within(1e-9)); // 1.8, 1.8, 1.5
        assertThat(memory.vsCeiling()).isCloseTo(0.6, within(1e-9)); // 0.6, 0.6, 0.4167
        assertThat(memory.p99VsCache()).isCloseTo(2.0, within(1e-9)); // 2.0, 2.0, 2.0
        assertThat(memory.p99Ms()).isEqualTo(5.0);
        assertThat(memory.backendPerRequest()).isZero();
        assertThat(rows.get(2).backendPerRequest()).isEqualTo(1.0); // the proxy sent each request on
        assertThat(rows).extracting(CompareTable.Row::target).containsExactly("cachegate-memory",
                CompareTable.NGINX_CACHE, CompareTable.NGINX_PROXY, CompareTable.CEILING);
    }

    @Test
    void table_withoutNginx_hasNoRatios() {
        CompareTable.Row row = new CompareTable(Map.of("portkey", List.of(sample(500, 60, 120, 2_500)))).rows().get(0);
        assertThat(row.vsCache()).isNaN();
        assertThat(row.vsCeiling()).isNaN();
        assertThat(row.throughput()).isEqualTo(500);
    }

    @Test
    void report_printsBothClients_kinds_andWhatEachPeerCannotDo() {
        List<CompareTarget> targets = List.of(
                new CompareTarget("cachegate-memory", CompareTarget.Kind.HIT, URI.create("http://127.0.0.1:1"),
                        Map.of(), "x-cache", null),
                new CompareTarget(CompareTable.NGINX_CACHE, CompareTarget.Kind.HIT, URI.create("http://127.0.0.1:2"),
                        Map.of(), "x-cache-status", null));
        Map<String, List<CompareTable.Sample>> samples = new LinkedHashMap<>();
        samples.put("cachegate-memory", List.of(sample(36_000, 1.0, 5.0, 0)));
        samples.put(CompareTable.NGINX_CACHE, List.of(new CompareTable.Sample(30_000, 0.9, 2.5, 300_000, 0, 0, 21.25)));
        Map<String, CompareTable> tables = new LinkedHashMap<>();
        tables.put("cachegate-bench", new CompareTable(samples));
        tables.put("wrk", new CompareTable(samples));
        CompareReport report = new CompareReport(targets, tables, Map.of("litellm", "skipped: pip"),
                Map.of("cachegate-memory", 1040), 1040, 230, 32, 1, 1, Duration.ofSeconds(5));

        String text = report.toText();
        assertThat(text.indexOf("Client: wrk")).isLessThan(text.indexOf("Client: cachegate-bench"));
        assertThat(text).contains("cachegate-memory  hit", "1.20", "keys on tenant", "proxy_cache keys on the bytes",
                "litellm", "skipped: pip");
        assertThat(report.failure()).isNull();
        assertThat(report.json().get("clients").get("wrk").get(0).get("throughputVsNginxCache").asDouble())
                .isCloseTo(1.2, within(1e-9));
        assertThat(text).contains("cpu us/req", "21.3"); // measured for nginx here, "-" for the gateway
        assertThat(report.json().get("clients").get("wrk").get(0).get("cpuMicrosPerRequest").isNull()).isTrue();
        assertThat(report.json().get("clients").get("wrk").get(1).get("cpuMicrosPerRequest").asDouble()).isEqualTo(21.25);
    }

    @Test
    void report_errorsOfCachegateFailTheRun_errorsOfAPeerDoNot() {
        Map<String, List<CompareTable.Sample>> samples = new LinkedHashMap<>();
        samples.put("portkey", List.of(new CompareTable.Sample(500, 60, 120, 2_500, 3, 2_500, Double.NaN)));
        CompareReport peerOnly = new CompareReport(List.of(), Map.of("wrk", new CompareTable(samples)), Map.of(),
                Map.of(), 1, 1, 1, 1, 1, Duration.ofSeconds(1));
        assertThat(peerOnly.failure()).isNull();
        samples.put("cachegate-off", List.of(new CompareTable.Sample(500, 60, 120, 2_500, 1, 2_500, Double.NaN)));
        CompareReport failing = new CompareReport(List.of(), Map.of("wrk", new CompareTable(samples)), Map.of(),
                Map.of(), 1, 1, 1, 1, 1, Duration.ofSeconds(1));
        assertThat(failing.failure()).contains("cachegate-off (1)").doesNotContain("portkey");
    }

    @Test
    void requestBody_isDeterministicAndEndsWithStop() {
        String body = new String(BenchCompareCommand.requestBody(), StandardCharsets.UTF_8);
        assertThat(body).contains("\"temperature\":0", "\"model\":\"llama-3.1-8b\"")
                .doesNotContain("stream").doesNotContain("max_tokens");
    }

    private static CompareTable.Sample sample(double throughput, double p50, double p99, long backendCalls) {
        long requests = Math.round(throughput * 10);
        return new CompareTable.Sample(throughput, p50, p99, backendCalls == 0 ? requests : backendCalls, 0, backendCalls,
                Double.NaN);
    }
}
