package io.cachegate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The installs a benchmark may run before it measures (apt-get for nginx and wrk, npm and pip for the peer
 * gateways): each command echoed on stderr with its output, bounded in time, and a failure told in one line so
 * the scenario can leave that target out instead of stopping.
 */
final class SetupCommands {

    private final Progress progress;

    SetupCommands(Progress progress) {
        this.progress = progress;
    }

    /**
     * Runs {@code command} with {@code env} added to the environment, its output copied to stderr; true when it
     * exited 0 within {@code timeout} (it is killed after that).
     */
    boolean run(List<String> command, Map<String, String> env, Duration timeout) throws InterruptedException {
        System.err.println("$ " + String.join(" ", command));
        Process p;
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env);
            p = pb.start();
        } catch (IOException e) {
            progress.info("could not run %s (%s)", command.get(0), e.getMessage());
            return false;
        }
        CompletableFuture<Void> copy = CompletableFuture.runAsync(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(System.err);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            progress.info("%s did not finish within %ds: stopped", String.join(" ", command), timeout.toSeconds());
            return false;
        }
        copy.exceptionally(e -> null).join();
        if (p.exitValue() != 0) {
            progress.info("%s failed (exit %d)", String.join(" ", command), p.exitValue());
            return false;
        }
        return true;
    }

    /**
     * {@code binary} on the PATH (or in the sbin folders), else Debian's {@code aptPackage} installed with
     * apt-get (as {@code .ci/run} installs its tools) and looked up again; empty when neither works.
     */
    Optional<String> findOrApt(String binary, String aptPackage) throws InterruptedException {
        Optional<String> found = find(binary);
        if (found.isPresent()) {
            return found;
        }
        progress.info("%s is not installed: apt-get update && apt-get install -y %s", binary, aptPackage);
        Map<String, String> env = Map.of("DEBIAN_FRONTEND", "noninteractive");
        Duration limit = Duration.ofMinutes(5);
        if (!run(List.of("apt-get", "update"), env, limit)
                || !run(List.of("apt-get", "install", "-y", aptPackage), env, limit)) {
            return Optional.empty();
        }
        found = find(binary);
        if (found.isEmpty()) {
            progress.info("apt-get installed %s but no %s executable was found", aptPackage, binary);
        }
        return found;
    }

    /** {@code binary} itself when it is a path, else looked up on the PATH and in the sbin folders. */
    static Optional<String> find(String binary) {
        if (binary.contains("/")) {
            return Files.isExecutable(Path.of(binary)) ? Optional.of(binary) : Optional.empty();
        }
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
        return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, binary)).filter(Files::isExecutable)
                .map(Path::toString).findFirst();
    }

    /**
     * Where peers installed from npm or pip live between runs: {@code $XDG_CACHE_HOME/cachegate/peers}, else
     * {@code ~/.cache/cachegate/peers}; never the repository.
     */
    static Path peersDir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return cache.resolve("cachegate").resolve("peers");
    }
}
