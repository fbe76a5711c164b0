package io.cachegate.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;

/** A small HTML status page for people; the same facts as {@code /admin/stats}. */
final class StatusPage {

    private StatusPage() {
    }

    static String render(JsonNode stats) {
        StringBuilder html = new StringBuilder(1024);
        html.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>Cachegate</title></head><body>")
                .append("<h1>Cachegate</h1><p>Policy: ").append(escape(stats.path("policy").asText()))
                .append("</p><p>Active connections: ").append(stats.path("activeConnections").asInt())
                .append(", requests in flight: ").append(stats.path("inFlight").asInt())
                .append(stats.path("draining").asBoolean() ? " (draining)" : "")
                .append("</p><h2>Backends</h2><ul>");
        stats.path("backends").properties().forEach(backend -> {
            html.append("<li>").append(escape(backend.getKey())).append("<ul>");
            backend.getValue().properties().forEach(url -> html.append("<li>").append(escape(url.getKey()))
                    .append(": ").append(url.getValue().asBoolean() ? "reachable" : "unreachable").append("</li>"));
            html.append("</ul></li>");
        });
        return html.append("</ul><p><a href=\"/metrics\">metrics</a> · <a href=\"/ready\">ready</a></p></body></html>")
                .toString();
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
