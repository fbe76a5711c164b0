package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * LiteLLM's proxy as a peer of {@code bench compare}: the {@code litellm} command on the PATH, else one
 * installed with pip into a virtual environment under {@link SetupCommands#peersDir()}; started with the
 * simulator as its one OpenAI-compatible model ({@code --model openai/<model> --api_base <sim>/v1}). Where pip
 * cannot reach its registry the install fails fast and the peer is skipped with the reason on stderr.
 */
final class LiteLlmPeer {

    private final SetupCommands setup;
    private final Progress progress;

    LiteLlmPeer(Progress progress) {
        this.progress = progress;
        this.setup = new SetupCommands(progress);
    }

    /** The {@code litellm} executable, installing it first when there is none; empty to skip. */
    Optional<String> install() throws InterruptedException {
        Path venv = SetupCommands.peersDir().resolve("litellm-venv");
        Path installed = venv.resolve("bin/litellm");
        Optional<String> found = SetupCommands.find("litellm").or(() -> SetupCommands.find(installed.toString()));
        if (found.isPresent()) {
            return found;
        }
        Optional<String> python = SetupCommands.find("python3");
        if (python.isEmpty()) {
            progress.info("LiteLLM skipped: no python3 to install it with");
            return Optional.empty();
        }
        try {
            Files.createDirectories(venv.getParent());
        } catch (IOException e) {
            progress.info("LiteLLM skipped: cannot create %s (%s)", venv.getParent(), e.getMessage());
            return Optional.empty();
        }
        progress.info("installing litellm[proxy] with pip into %s", venv);
        Duration limit = Duration.ofMinutes(5);
        boolean ok = (Files.isExecutable(venv.resolve("bin/pip"))
                || setup.run(List.of(python.get(), "-m", "venv", venv.toString()), Map.of(), limit))
                && setup.run(List.of(venv.resolve("bin/pip").toString(), "install", "--disable-pip-version-check",
                        "--retries", "1", "--timeout", "15", "litellm[proxy]"), Map.of(), limit);
        if (!ok || !Files.isExecutable(installed)) {
            progress.info("LiteLLM skipped: pip could not install litellm[proxy] here (see above)");
            return Optional.empty();
        }
        return Optional.of(installed.toString());
    }

    /** Starts {@code litellm} on a free port in front of {@code simulator}, serving {@code model}; not yet waited for. */
    static StartedServer start(String litellm, URI simulator, String model, BenchChildren children) throws IOException {
        int port = LocalProcesses.freePort();
        ProcessBuilder pb = new ProcessBuilder(litellm, "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--model", "openai/" + model, "--api_base", simulator.resolve("/v1").toString())
                .redirectErrorStream(true).redirectOutput(children.log("litellm"));
        pb.environment().put("OPENAI_API_KEY", "sk-bench");
        Process proxy = children.adopt(pb.start());
        return new StartedServer(URI.create("http://127.0.0.1:" + port), proxy.toHandle());
    }
}
