package io.cachegate.config;

/** How spans are sent to the OTLP collector: protobuf over HTTP (OTLP's default, port 4318) or gRPC (4317). */
public enum OtlpProtocol {
    HTTP, GRPC
}
