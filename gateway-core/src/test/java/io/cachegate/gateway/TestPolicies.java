package io.cachegate.gateway;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchanges;
import java.net.URI;
import java.util.List;
import java.util.stream.Collectors;

/** Policies for tests: both listeners on port 0, one backend {@code main} with short timeouts. */
final class TestPolicies {

    private TestPolicies() {
    }

    static Policy parse(String yaml) {
        return Exchanges.policy(yaml);
    }

    /** One backend over {@code urls}, no tenants, a catch-all route. */
    static Policy forBackend(List<URI> urls) {
        return parse(yaml(urls, "2s", "", ""));
    }

    /**
     * @param firstByte the backend's first_byte timeout
     * @param extraServer more {@code server:} keys, each line indented by four spaces
     * @param extraSections more top-level sections (tenants, routes)
     */
    static String yaml(List<URI> urls, String firstByte, String extraServer, String extraSections) {
        String list = urls.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", "));
        return """
                server:
                  port: 0
                  admin_port: 0
                  host: 127.0.0.1
                  max_body_bytes: 1MiB
                  shutdown_grace: 5s
                  io_threads: 2
                %s
                backends:
                  - name: main
                    urls: [%s]
                    timeouts: {connect: 1s, first_byte: %s, idle: 2s, total: 30s}
                %s
                """.formatted(extraServer, list, firstByte, extraSections);
    }
}
