package io.cachegate.config;

import static io.cachegate.config.ServerKeys.ADMIN_HOST;
import static io.cachegate.config.ServerKeys.ADMIN_PORT;
import static io.cachegate.config.ServerKeys.ADMIN_TOKEN;
import static io.cachegate.config.ServerKeys.BODY_TIMEOUT;
import static io.cachegate.config.ServerKeys.HEADER_TIMEOUT;
import static io.cachegate.config.ServerKeys.HOST;
import static io.cachegate.config.ServerKeys.IDLE_TIMEOUT;
import static io.cachegate.config.ServerKeys.IO_THREADS;
import static io.cachegate.config.ServerKeys.MAX_BODY_BYTES;
import static io.cachegate.config.ServerKeys.MAX_BUFFERED_BODY_BYTES;
import static io.cachegate.config.ServerKeys.MAX_BUFFERED_BODY_BYTES_PER_TENANT;
import static io.cachegate.config.ServerKeys.MAX_CONNECTIONS;
import static io.cachegate.config.ServerKeys.MAX_CONNECTIONS_PER_ADDRESS;
import static io.cachegate.config.ServerKeys.MAX_DEPTH;
import static io.cachegate.config.ServerKeys.MAX_HEADER_BYTES;
import static io.cachegate.config.ServerKeys.MAX_NUMBER_LENGTH;
import static io.cachegate.config.ServerKeys.MAX_STRING_LENGTH;
import static io.cachegate.config.ServerKeys.PASSTHROUGH_METHODS;
import static io.cachegate.config.ServerKeys.PASSTHROUGH_PATH;
import static io.cachegate.config.ServerKeys.PORT;
import static io.cachegate.config.ServerKeys.SHUTDOWN_GRACE;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code server} section (keys in {@link ServerKeys}). */
final class ServerReader {

    private ServerReader() {
    }

    static ServerSettings read(Fields root) {
        Fields server = root.section(ServerKeys.SECTION);
        if (server == null) {
            return ServerSettings.defaults();
        }
        // Port 0 asks the OS for a free port: tests bind that way.
        int port = server.get(PORT);
        int adminPort = server.get(ADMIN_PORT);
        if (port != 0 && port == adminPort && server.has(ADMIN_PORT.name())) {
            server.problem(ADMIN_PORT.name(), port + " is the same as port; the admin API needs its own port");
        }
        ServerSettings settings = new ServerSettings(
                server.get(HOST),
                port,
                server.get(ADMIN_HOST),
                adminPort,
                server.get(MAX_BODY_BYTES),
                server.get(MAX_HEADER_BYTES),
                server.get(ADMIN_TOKEN),
                server.get(SHUTDOWN_GRACE),
                server.get(IO_THREADS),
                json(server),
                passthrough(server),
                new ServerSettings.Connections(server.get(HEADER_TIMEOUT), server.get(BODY_TIMEOUT),
                        server.get(IDLE_TIMEOUT), server.get(MAX_CONNECTIONS), server.get(MAX_CONNECTIONS_PER_ADDRESS),
                        server.get(MAX_BUFFERED_BODY_BYTES), server.get(MAX_BUFFERED_BODY_BYTES_PER_TENANT)),
                TlsReader.read(server, ServerKeys.TLS),
                TlsReader.read(server, ServerKeys.ADMIN_TLS));
        // The check serve and a reload apply too: validate must not pass a file they would refuse.
        AdminExposure.problem(settings).ifPresent(message -> server.problem(ADMIN_HOST.name(), message));
        return settings;
    }

    private static List<ServerSettings.Passthrough> passthrough(Fields server) {
        Section section = ServerKeys.PASSTHROUGH;
        List<Node> items = server.items(section.name());
        if (items == null) {
            return List.of();
        }
        List<ServerSettings.Passthrough> out = new ArrayList<>();
        Set<String> paths = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = server.reader().fields(items.get(i), server.path(section.name()) + "[" + i + "]",
                    section.names());
            if (fields == null) {
                continue;
            }
            Optional<String> path = fields.get(PASSTHROUGH_PATH);
            List<String> methods = fields.get(PASSTHROUGH_METHODS);
            if (path.isEmpty()) {
                continue;
            }
            String p = path.get();
            if (!p.startsWith("/v1/") || p.length() == 4) {
                fields.problem(PASSTHROUGH_PATH.name(), Durations.quote(p) + " must be a path under /v1/");
                continue;
            }
            if (p.contains("?") || p.contains("#") || p.contains("*") || p.contains("%") || p.contains("/.")) {
                fields.problem(PASSTHROUGH_PATH.name(), Durations.quote(p)
                        + " must be an exact path: no query, wildcard, percent-encoding or dot segment");
                continue;
            }
            if (!paths.add(p)) {
                fields.problem(PASSTHROUGH_PATH.name(), Durations.quote(p) + " is listed twice");
                continue;
            }
            Set<String> upper = new HashSet<>();
            for (String method : methods) {
                if (!method.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
                    fields.problem(PASSTHROUGH_METHODS.name(), Durations.quote(method) + " is not an HTTP method");
                } else {
                    upper.add(method.toUpperCase(Locale.ROOT));
                }
            }
            out.add(new ServerSettings.Passthrough(p, upper));
        }
        return out;
    }

    private static JsonLimits json(Fields server) {
        Fields json = server.section(ServerKeys.JSON);
        if (json == null) {
            return JsonLimits.defaults();
        }
        return new JsonLimits(json.get(MAX_DEPTH), json.get(MAX_STRING_LENGTH), json.get(MAX_NUMBER_LENGTH));
    }
}
