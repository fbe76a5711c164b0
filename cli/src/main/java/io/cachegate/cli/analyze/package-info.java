/**
 * The traffic analyzer behind {@code cachegate analyze}: reads a log of OpenAI request bodies line by line and
 * reports how much of it each cache layer could answer. It keys, normalises, hashes prefixes, embeds and
 * estimates tokens with the gateway's own classes ({@code cache-exact}, {@code routing}, {@code cache-semantic},
 * {@code admission}, the gateway's request parser and {@code SemanticQuery}), so its figures are the gateway's.
 * Memory is bounded whatever the file size: key sets hold 64-bit digests up to a cap, the prefix blocks an LRU,
 * the vectors a FIFO of fixed size.
 */
package io.cachegate.cli.analyze;
