package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Portkey's open-source AI gateway ({@code @portkey-ai/gateway} from npm) as a peer of {@code bench compare}:
 * installed once with npm into {@link SetupCommands#peersDir()} (never the repository), started as its README
 * documents ({@code npx @portkey-ai/gateway}, here its {@code bin} script run by node directly so that stopping
 * the child stops the server) with {@code --port} and {@code --headless}, and sent the simulator as an
 * OpenAI-compatible custom host. Skipped, with the reason on stderr, when node or npm is missing or the install fails.
 */
final class PortkeyPeer {

    static final String PACKAGE = "@portkey-ai/gateway";
    /** Pinned so that every run measures the same code. */
    static final String VERSION = "1.15.2";

    private final SetupCommands setup;
    private final Progress progress;

    PortkeyPeer(Progress progress) {
        this.progress = progress;
        this.setup = new SetupCommands(progress);
    }

    /** The installed server script, installing the package first when it is not there yet; empty to skip. */
    Optional<Path> install() throws InterruptedException {
        Optional<String> node = SetupCommands.find("node");
        Optional<String> npm = SetupCommands.find("npm");
        if (node.isEmpty() || npm.isEmpty()) {
            progress.info("Portkey skipped: node and npm are needed to install %s", PACKAGE);
            return Optional.empty();
        }
        Path dir = SetupCommands.peersDir().resolve("portkey-gateway-" + VERSION);
        Path script = dir.resolve("node_modules/@portkey-ai/gateway/build/start-server.js");
        if (Files.isRegularFile(script)) {
            return Optional.of(script);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            progress.info("Portkey skipped: cannot create %s (%s)", dir, e.getMessage());
            return Optional.empty();
        }
        progress.info("installing %s@%s into %s", PACKAGE, VERSION, dir);
        boolean ok = setup.run(List.of(npm.get(), "install", "--no-audit", "--no-fund", "--prefix", dir.toString(),
                PACKAGE + "@" + VERSION), Map.of(), Duration.ofMinutes(5));
        if (!ok || !Files.isRegularFile(script)) {
            progress.info("Portkey skipped: npm could not install %s@%s (see above)", PACKAGE, VERSION);
            return Optional.empty();
        }
        return Optional.of(script);
    }

    /** Starts the gateway from {@code script} on a free port as a child of {@code children}; not yet waited for. */
    static StartedServer start(Path script, BenchChildren children) throws IOException {
        int port = LocalProcesses.freePort();
        ProcessBuilder pb = new ProcessBuilder(SetupCommands.find("node").orElse("node"), script.toString(),
                "--port=" + port, "--headless").redirectErrorStream(true).redirectOutput(children.log("portkey"));
        pb.environment().put("NODE_ENV", "production");
        Process node = children.adopt(pb.start());
        return new StartedServer(URI.create("http://127.0.0.1:" + port), node.toHandle());
    }

    /**
     * The headers that route a request to the simulator: provider {@code openai} with the simulator as its
     * custom host, and the simple cache asked for (the open-source build answers every request from the
     * backend all the same: the backend calls of the run show it).
     */
    static Map<String, String> headers(URI simulator) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-portkey-provider", "openai");
        h.put("x-portkey-custom-host", simulator.resolve("/v1").toString());
        h.put("x-portkey-cache", "simple");
        h.put("Authorization", "Bearer sk-bench");
        return h;
    }

    /** {@code node --version}, e.g. {@code v20.19.2}. */
    static String nodeVersion() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(SetupCommands.find("node").orElse("node"), "--version").redirectErrorStream(true)
                .start();
        String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor();
        return v;
    }
}
