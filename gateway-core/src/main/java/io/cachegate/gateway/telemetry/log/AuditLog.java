package io.cachegate.gateway.telemetry.log;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Ticker;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;

/**
 * The audit log: one {@code "type":"audit"} line per mutating admin call (purge, reload), accepted or not, in the
 * access log's writer. Callers pass what may be logged: never the admin token, never an end user's id.
 */
public final class AuditLog {

    /** Audits nothing: the access log is off. */
    public static final AuditLog OFF = new AuditLog(null, Ticker.system());

    private final LineWriter writer;
    private final Ticker ticker;

    /** @param writer the access log's writer; null audits nothing */
    public AuditLog(LineWriter writer, Ticker ticker) {
        this.writer = writer;
        this.ticker = ticker;
    }

    /**
     * @param action {@code purge} or {@code reload}
     * @param caller the client's address; null for the gateway's own process (a signal, a changed file)
     * @param outcome a short word: {@code ok}, {@code invalid}, {@code unauthorised}, {@code failed}, or the reload's
     * @param params what was asked (may be null)
     * @param result what it did, e.g. counts (may be null)
     */
    public void write(String action, SocketAddress caller, int status, String outcome, ObjectNode params,
                      ObjectNode result) {
        if (writer == null) {
            return;
        }
        String time = Instant.ofEpochMilli(ticker.wallMillis()).toString();
        writer.offer(LogLine.of(Json.line(256, out -> {
            out.writeStartObject();
            out.writeStringField("time", time);
            out.writeStringField("type", "audit");
            out.writeStringField("action", action);
            out.writeStringField("caller", address(caller));
            out.writeNumberField("status", status);
            out.writeStringField("outcome", outcome);
            if (params != null) {
                out.writeFieldName("params");
                out.writeTree(params);
            }
            if (result != null) {
                out.writeFieldName("result");
                out.writeTree(result);
            }
            out.writeEndObject();
        })));
    }

    private static String address(SocketAddress caller) {
        if (caller instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return caller == null ? "local" : caller.toString(); // null: the gateway's own process (a signal, a file)
    }
}
