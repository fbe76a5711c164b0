package io.cachegate.config;

import static io.cachegate.config.ServerKeys.ADMIN_HOST;
import static io.cachegate.config.ServerKeys.ADMIN_PORT;
import static io.cachegate.config.ServerKeys.ADMIN_TOKEN;
import static io.cachegate.config.ServerKeys.HOST;
import static io.cachegate.config.ServerKeys.IO_THREADS;
import static io.cachegate.config.ServerKeys.MAX_BODY_BYTES;
import static io.cachegate.config.ServerKeys.MAX_DEPTH;
import static io.cachegate.config.ServerKeys.MAX_HEADER_BYTES;
import static io.cachegate.config.ServerKeys.MAX_NUMBER_LENGTH;
import static io.cachegate.config.ServerKeys.MAX_STRING_LENGTH;
import static io.cachegate.config.ServerKeys.PORT;
import static io.cachegate.config.ServerKeys.SHUTDOWN_GRACE;

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
        return new ServerSettings(
                server.get(HOST),
                port,
                server.get(ADMIN_HOST),
                adminPort,
                server.get(MAX_BODY_BYTES),
                server.get(MAX_HEADER_BYTES),
                server.get(ADMIN_TOKEN),
                server.get(SHUTDOWN_GRACE),
                server.get(IO_THREADS),
                json(server));
    }

    private static JsonLimits json(Fields server) {
        Fields json = server.section(ServerKeys.JSON);
        if (json == null) {
            return JsonLimits.defaults();
        }
        return new JsonLimits(json.get(MAX_DEPTH), json.get(MAX_STRING_LENGTH), json.get(MAX_NUMBER_LENGTH));
    }
}
