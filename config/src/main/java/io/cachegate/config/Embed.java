package io.cachegate.config;

/**
 * Which text of a chat request the semantic cache embeds. YAML: {@code last_user} (the last user message, the
 * question being asked) or {@code all_user} (every user message joined, for routes whose questions span turns).
 * Whatever is not embedded is part of the exactly compared scope.
 */
public enum Embed {
    LAST_USER,
    ALL_USER
}
