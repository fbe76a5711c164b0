package io.cachegate.bench;

/**
 * Why a request failed; each kind is one key of {@link BenchReport#errorsByKind()}. Answers with
 * a non-2xx status are keyed by status instead ({@code http_503}), see {@link #statusKey(int)}.
 */
enum ErrorKind {
    /** The TCP connection could not be opened (refused, unreachable, connect timeout). */
    CONNECT("connect"),
    /** No complete answer within the request timeout, measured from the send. */
    TIMEOUT("timeout"),
    /** The connection closed, or failed, before the answer was complete. */
    PREMATURE_CLOSE("premature_close"),
    /** The answer was not valid HTTP. */
    PROTOCOL("protocol"),
    /** A 2xx streaming answer ended without {@code data: [DONE]}. */
    INCOMPLETE_STREAM("incomplete_stream"),
    /** Open loop: the request was due while every connection was busy and the backlog was full. */
    GENERATOR_BACKLOG("generator_backlog"),
    /** Still queued or in flight when the drain deadline cut the run off. */
    UNFINISHED("unfinished");

    private static final String[] STATUS_KEYS = new String[600];

    static {
        for (int status = 100; status < STATUS_KEYS.length; status++) {
            STATUS_KEYS[status] = "http_" + status;
        }
    }

    private final String key;

    ErrorKind(String key) {
        this.key = key;
    }

    /** The stable name used in reports. */
    String key() {
        return key;
    }

    /** The report key of an answer with a non-2xx status. */
    static String statusKey(int status) {
        return status >= 100 && status < STATUS_KEYS.length ? STATUS_KEYS[status] : "http_" + status;
    }
}
