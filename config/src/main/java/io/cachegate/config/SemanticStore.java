package io.cachegate.config;

/** Where the semantic index lives. YAML: {@code embedded} (on local disk) or {@code qdrant}. */
public enum SemanticStore {
    EMBEDDED,
    QDRANT
}
