package io.cachegate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * nginx as the exact-cache benchmark's reference: Debian's package (installed with apt-get when
 * missing), run with a generated configuration that caches POST answers keyed on the request body.
 */
final class NginxReference {

    private static final Pattern NGINX_VERSION = Pattern.compile("nginx/(\\S+)");
    private static final Progress PROGRESS = new Progress("exact-cache");

    private NginxReference() {
    }

    /**
     * Starts {@code binary} on a free port in front of the simulator on {@code simPort}, with its config, cache
     * and logs in a folder of {@code children}'s dir; checked first with {@code nginx -t}. Not yet waited for.
     */
    static URI start(String binary, BenchChildren children, int simPort) throws IOException, InterruptedException {
        int port = LocalProcesses.freePort();
        Path dir = children.dir().resolve("nginx");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path conf = dir.resolve("nginx.conf");
        Files.writeString(conf, config(dir, port, simPort));
        List<String> command = List.of(binary, "-p", dir.toString(), "-e", dir.resolve("error.log").toString(),
                "-c", conf.toString());
        List<String> test = new ArrayList<>(command);
        test.addAll(1, List.of("-t", "-q"));
        Process check = new ProcessBuilder(test).redirectErrorStream(true).start();
        String checkOut = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (check.waitFor() != 0) {
            throw new IllegalStateException("nginx -t rejected the generated config:\n" + checkOut);
        }
        children.adopt(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(children.log("nginx")).start());
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The nginx configuration: a caching reverse proxy to the simulator, entries keyed on the request body. */
    static String config(Path dir, int port, int simPort) {
        String d = dir.toAbsolutePath().toString();
        return """
                daemon off;
                master_process on;
                worker_processes auto;
                error_log %1$s/error.log warn;
                pid %1$s/nginx.pid;

                events {
                    worker_connections 4096;
                }

                http {
                    access_log off;
                    client_body_temp_path %1$s/client_body_temp;
                    proxy_temp_path %1$s/proxy_temp;
                    fastcgi_temp_path %1$s/fastcgi_temp;
                    uwsgi_temp_path %1$s/uwsgi_temp;
                    scgi_temp_path %1$s/scgi_temp;
                    proxy_cache_path %1$s/cache levels=1:2 keys_zone=bench:16m max_size=256m inactive=1h use_temp_path=off;
                    keepalive_timeout 75s;
                    keepalive_requests 1000000;

                    upstream sim {
                        server 127.0.0.1:%3$d;
                        keepalive 64;
                        keepalive_requests 1000000;
                    }

                    server {
                        listen 127.0.0.1:%2$d;
                        location / {
                            client_max_body_size 4m;
                            client_body_buffer_size 4m;
                            proxy_pass http://sim;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_buffering on;
                            proxy_cache bench;
                            proxy_cache_methods POST;
                            proxy_cache_key "$request_uri|$request_body";
                            proxy_cache_valid 200 1h;
                            add_header X-Cache-Status $upstream_cache_status always;
                        }
                    }
                }
                """.formatted(d, port, simPort);
    }

    /** The nginx executable: {@code binary} itself when it is a path, else looked up on the PATH and in the sbin folders. */
    static Optional<String> find(String nginxBinary) {
        if (nginxBinary.contains("/")) {
            return Files.isExecutable(Path.of(nginxBinary)) ? Optional.of(nginxBinary) : Optional.empty();
        }
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
        return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, nginxBinary)).filter(Files::isExecutable)
                .map(Path::toString).findFirst();
    }

    /** Installs Debian's nginx with apt-get, echoing what it does on stderr. */
    static Optional<String> install(String nginxBinary) throws InterruptedException {
        PROGRESS.info("nginx is not installed: running apt-get update && apt-get install -y nginx");
        try {
            for (List<String> command : List.of(List.of("apt-get", "update"), List.of("apt-get", "install", "-y", "nginx"))) {
                System.err.println("$ " + String.join(" ", command));
                ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
                pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
                Process p = pb.start();
                try (InputStream in = p.getInputStream()) {
                    in.transferTo(System.err);
                }
                int exit = p.waitFor();
                if (exit != 0) {
                    PROGRESS.info("%s failed (exit %d): the nginx column is left out", String.join(" ", command), exit);
                    return Optional.empty();
                }
            }
        } catch (IOException e) {
            PROGRESS.info("could not run apt-get (%s): the nginx column is left out", e.getMessage());
            return Optional.empty();
        }
        Optional<String> found = find(nginxBinary);
        if (found.isEmpty()) {
            PROGRESS.info("apt-get install finished but no nginx executable was found: the nginx column is left out");
        }
        return found;
    }

    static String version(String binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary, "-v").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Matcher m = NGINX_VERSION.matcher(out);
        return m.find() ? m.group(1) : out.strip();
    }
}
