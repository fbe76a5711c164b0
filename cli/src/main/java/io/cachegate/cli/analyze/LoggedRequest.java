package io.cachegate.cli.analyze;

import io.cachegate.cache.exact.Dialect;
import io.cachegate.gateway.api.OpenAiRequest;

/**
 * One request of the log, parsed and validated as the gateway parses it.
 *
 * @param line the line number in the file, from 1
 * @param tenant the tenant named by the line, or the gateway's default tenant
 */
record LoggedRequest(long line, String tenant, OpenAiRequest request) {

    /** The API the request is for. */
    Dialect dialect() {
        return request.endpoint().dialect();
    }
}
