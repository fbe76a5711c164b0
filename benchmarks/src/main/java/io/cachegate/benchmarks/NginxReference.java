package io.cachegate.benchmarks;

import java.io.IOException;
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
 * nginx as the benchmarks' reference: Debian's package (installed with apt-get when missing), run with a
 * generated configuration of one or more sites in front of the simulator: a cache of POST answers keyed on the
 * request body ({@code proxy_cache}), a plain proxy, and a constant answer ({@code return 200 '...'}: no lookup,
 * no upstream, the practical ceiling of an HTTP server on the machine).
 */
final class NginxReference {

    private static final Pattern NGINX_VERSION = Pattern.compile("nginx/(\\S+)");
    /** nginx reads a configuration token into a 4 KiB buffer: a longer constant answer is refused by {@code nginx -t}. */
    static final int MAX_CONSTANT_BYTES = 3 * 1024;

    /** What a site does with a request. */
    enum Kind {
        /** proxy_cache in front of the simulator, keyed on the request URI and body. */
        CACHE,
        /** proxy_pass to the simulator, nothing cached. */
        PROXY,
        /** The same bytes for every request, from the configuration. */
        CONSTANT
    }

    /** One {@code server} block: what it does and the port it listens on (127.0.0.1). */
    record Site(Kind kind, int port) {
    }

    private NginxReference() {
    }

    /**
     * Starts {@code binary} on a free port in front of the simulator on {@code simPort}, as one proxy_cache
     * site, with its config, cache and logs in a folder of {@code children}'s dir. Not yet waited for.
     */
    static URI start(String binary, BenchChildren children, int simPort) throws IOException, InterruptedException {
        int port = LocalProcesses.freePort();
        start(binary, children, simPort, List.of(new Site(Kind.CACHE, port)), null);
        return URI.create("http://127.0.0.1:" + port);
    }

    /**
     * Starts {@code binary} with {@code sites} in front of the simulator on {@code simPort} ({@code constant} is
     * the body of a CONSTANT site); checked first with {@code nginx -t}. Not yet waited for. Returns the master
     * process (its workers are its children).
     */
    static Process start(String binary, BenchChildren children, int simPort, List<Site> sites, byte[] constant)
            throws IOException, InterruptedException {
        Path dir = children.dir().resolve("nginx");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path conf = dir.resolve("nginx.conf");
        Files.writeString(conf, config(dir, simPort, sites, constant));
        List<String> command = List.of(binary, "-p", dir.toString(), "-e", dir.resolve("error.log").toString(),
                "-c", conf.toString());
        List<String> test = new ArrayList<>(command);
        test.addAll(1, List.of("-t", "-q"));
        Process check = new ProcessBuilder(test).redirectErrorStream(true).start();
        String checkOut = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (check.waitFor() != 0) {
            throw new IllegalStateException("nginx -t rejected the generated config:\n" + checkOut);
        }
        return children.adopt(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(children.log("nginx")).start());
    }

    /** The nginx configuration of one proxy_cache site, entries keyed on the request body. */
    static String config(Path dir, int port, int simPort) {
        return config(dir, simPort, List.of(new Site(Kind.CACHE, port)), null);
    }

    /**
     * The nginx configuration of {@code sites} in front of the simulator on {@code simPort}: request bodies up
     * to 4 MiB read into memory (so {@code $request_body}, the cache key, is never empty), keep-alive to the
     * simulator, {@code constant} as the answer of a CONSTANT site.
     */
    static String config(Path dir, int simPort, List<Site> sites, byte[] constant) {
        String d = dir.toAbsolutePath().toString();
        StringBuilder servers = new StringBuilder();
        for (Site site : sites) {
            servers.append(server(site, constant));
        }
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
                    client_max_body_size 4m;
                    client_body_buffer_size 4m;
                    # nginx has no escape for a dollar sign in a string: a variable that holds one.
                    geo $cachegate_dollar {
                        default "$";
                    }

                    upstream sim {
                        server 127.0.0.1:%2$d;
                        keepalive 64;
                        keepalive_requests 1000000;
                    }
                %3$s}
                """.formatted(d, simPort, servers);
    }

    private static String server(Site site, byte[] constant) {
        String location = switch (site.kind()) {
            case CACHE -> """
                            proxy_pass http://sim;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_buffering on;
                            proxy_cache bench;
                            proxy_cache_methods POST;
                            proxy_cache_key "$request_uri|$request_body";
                            proxy_cache_valid 200 1h;
                            add_header X-Cache-Status $upstream_cache_status always;
                    """;
            case PROXY -> """
                            proxy_pass http://sim;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                    """;
            case CONSTANT -> """
                            default_type application/json;
                            return 200 '%s';
                    """.formatted(quoted(constant));
        };
        return """

                    server {
                        listen 127.0.0.1:%d;
                        location / {
                %s        }
                    }
                """.formatted(site.port(), location);
    }

    /**
     * {@code body} as the inside of a single-quoted nginx string that yields the same bytes: backslashes and
     * quotes escaped (nginx turns {@code \n} into a newline), a dollar sign through a variable holding one.
     */
    static String quoted(byte[] body) {
        if (body == null) {
            throw new IllegalArgumentException("a CONSTANT site needs its answer");
        }
        if (body.length > MAX_CONSTANT_BYTES) {
            throw new IllegalArgumentException("the constant answer has " + body.length + " bytes; nginx takes at most "
                    + MAX_CONSTANT_BYTES + " in one configuration token");
        }
        String text = new String(body, StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\'' -> out.append("\\'");
                case '$' -> out.append("${cachegate_dollar}");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** The nginx executable, installed with apt-get (Debian's {@code nginx}) when it is missing. */
    static Optional<String> findOrInstall(String nginxBinary, Progress progress) throws InterruptedException {
        return new SetupCommands(progress).findOrApt(nginxBinary, "nginx");
    }

    static String version(String binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary, "-v").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Matcher m = NGINX_VERSION.matcher(out);
        return m.find() ? m.group(1) : out.strip();
    }
}
