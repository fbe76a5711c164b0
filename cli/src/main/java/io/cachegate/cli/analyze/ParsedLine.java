package io.cachegate.cli.analyze;

/** What one non-blank line of the log holds: a request, or the reason it is not one. */
sealed interface ParsedLine {

    record Request(LoggedRequest request) implements ParsedLine {
    }

    /** A line the gateway would have rejected (or not a request at all); {@code reason} says why. */
    record Malformed(long line, String reason) implements ParsedLine {
    }
}
