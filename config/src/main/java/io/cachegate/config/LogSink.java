package io.cachegate.config;

/** Where the access log's lines go. */
public enum LogSink {
    STDOUT, FILE, OFF
}
