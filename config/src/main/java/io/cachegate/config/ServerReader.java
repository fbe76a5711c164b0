package io.cachegate.config;

import java.util.Set;

/** Reads the {@code server} section. */
final class ServerReader {

    private static final Set<String> KEYS = Set.of("host", "port", "admin_host", "admin_port", "max_body_bytes",
            "max_header_bytes", "admin_token", "shutdown_grace", "io_threads", "json");
    private static final Set<String> JSON_KEYS = Set.of("max_depth", "max_string_length", "max_number_length");

    private ServerReader() {
    }

    static ServerSettings read(Fields root) {
        ServerSettings d = ServerSettings.defaults();
        Fields server = root.section("server", KEYS);
        if (server == null) {
            return d;
        }
        // Port 0 asks the OS for a free port: tests bind that way.
        int port = (int) server.integer("port", d.port(), 0, 65_535);
        int adminPort = (int) server.integer("admin_port", d.adminPort(), 0, 65_535);
        if (port != 0 && port == adminPort && server.has("admin_port")) {
            server.problem("admin_port", port + " is the same as port; the admin API needs its own port");
        }
        return new ServerSettings(
                server.string("host", d.host()),
                port,
                server.string("admin_host", d.adminHost()),
                adminPort,
                server.size("max_body_bytes", d.maxBodyBytes(), 1, Long.MAX_VALUE),
                (int) server.size("max_header_bytes", d.maxHeaderBytes(), 1, Integer.MAX_VALUE),
                server.optional("admin_token"),
                server.duration("shutdown_grace", d.shutdownGrace()),
                (int) server.integer("io_threads", d.ioThreads(), 0, 4096),
                json(server));
    }

    private static JsonLimits json(Fields server) {
        JsonLimits d = JsonLimits.defaults();
        Fields json = server.section("json", JSON_KEYS);
        if (json == null) {
            return d;
        }
        return new JsonLimits(
                (int) json.integer("max_depth", d.maxDepth(), 1, 10_000),
                (int) json.size("max_string_length", d.maxStringLength(), 1, Integer.MAX_VALUE),
                (int) json.integer("max_number_length", d.maxNumberLength(), 1, 100_000));
    }
}
