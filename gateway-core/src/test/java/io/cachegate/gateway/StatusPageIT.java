package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The status page in a real browser (headless Chromium, Debian's {@code chromium}; CI installs it, a machine
 * without it skips): the page loads its script and uPlot from the admin listener, draws the series of
 * {@code /admin/series} and the replicas of {@code /admin/stats}, and its charts' data move with the traffic. The
 * page writes what it drew into {@code data-*} attributes, which {@code --dump-dom} shows after its scripts ran.
 */
class StatusPageIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator();
    private static String browser;

    @BeforeAll
    static void start() {
        browser = findBrowser();
        Assumptions.assumeTrue(browser != null, "no chromium on this machine");
    }

    @Test
    void chartsDrawTheSeries_andTheirDataMoveWithTraffic() throws Exception {
        traffic(Gateway.STATUS_SAMPLE_MILLIS + 1_500);

        String first = dumpDom();

        assertThat(attribute(first, "body", "data-updates")).as("the page fetched and drew its data")
                .isGreaterThanOrEqualTo(1);
        assertThat(attribute(first, "traffic", "data-points")).as("points on the traffic chart").isPositive();
        assertThat(first).contains("uplot").as("uPlot drew the charts").contains("<canvas");
        assertThat(first).contains(fixture.sim().baseUrl().toString().replaceFirst("/$", "")).contains("CLOSED");
        long firstSample = attribute(first, "body", "data-last-t");

        // Traffic keeps flowing while the browser starts and reads: a sample taken after it stopped would be an
        // interval without hits, and the browser may take longer than a sample interval to start on a busy machine.
        AtomicBoolean browsing = new AtomicBoolean(true);
        Thread background = new Thread(() -> {
            try {
                while (browsing.get()) {
                    traffic(200);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        background.start();
        String second;
        try {
            Thread.sleep(Gateway.STATUS_SAMPLE_MILLIS + 1_500);
            second = dumpDom();
        } finally {
            browsing.set(false);
            background.join();
        }

        assertThat(attribute(second, "body", "data-last-t")).as("a later sample").isGreaterThan(firstSample);
        assertThat(attribute(second, "traffic", "data-points")).isGreaterThan(attribute(first, "traffic", "data-points"));
        assertThat(lastValues(second, "traffic").get(0)).as("exact hits per second in the newest point").isPositive();
    }

    /** Misses and hits for {@code millis}. */
    private static void traffic(long millis) throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        String repeated = chat("status page " + nonce());
        while (System.nanoTime() < end) {
            RawHttp.post(fixture.port(), CHAT, repeated);
            RawHttp.post(fixture.port(), CHAT, chat("status page miss " + nonce()));
        }
    }

    private static String dumpDom() throws Exception {
        Path out = Files.createTempFile("status-page", ".html");
        Path profile = Files.createTempDirectory("chromium-profile");
        Process p = new ProcessBuilder(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--user-data-dir=" + profile, "--window-size=1280,1400",
                "--virtual-time-budget=4000", "--dump-dom", "http://127.0.0.1:" + fixture.adminPort() + "/")
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** A numeric attribute of the element with {@code id} (or of the body). */
    private static long attribute(String dom, String id, String name) {
        String tag = id.equals("body") ? "<body[^>]*" : "<[^>]*id=\"" + id + "\"[^>]*";
        Matcher element = Pattern.compile(tag + ">").matcher(dom);
        assertThat(element.find()).as("element " + id).isTrue();
        Matcher value = Pattern.compile(name + "=\"(\\d+)\"").matcher(element.group());
        assertThat(value.find()).as(name + " on " + id + ": " + element.group()).isTrue();
        return Long.parseLong(value.group(1));
    }

    /** The newest value of each series of a chart, as the page wrote it in {@code data-last}. */
    private static List<Double> lastValues(String dom, String id) {
        Matcher element = Pattern.compile("<[^>]*id=\"" + id + "\"[^>]*data-last=\"\\[([^\\]]*)\\]\"").matcher(dom);
        assertThat(element.find()).as("data-last on " + id).isTrue();
        List<Double> values = new ArrayList<>();
        for (String v : element.group(1).split(",")) {
            values.add(v.equals("null") ? Double.NaN : Double.parseDouble(v));
        }
        return values;
    }

    private static String findBrowser() {
        for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                if (new File(dir, name).canExecute()) {
                    return new File(dir, name).getPath();
                }
            }
        }
        return null;
    }
}
