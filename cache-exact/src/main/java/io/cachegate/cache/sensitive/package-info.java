/**
 * Sensitive-data detection over text that would be cached: e-mail addresses, phone numbers, payment cards
 * (Luhn), IBANs (mod 97), US SSNs, secrets (API-key prefixes, AWS key ids, JWTs, PEM private keys) and the
 * policy's own RE2 patterns. One pass over the text with checks that start only at a few trigger characters;
 * a detector reports which kinds matched, never the matched text. No Netty, no JSON: the gateway extracts the
 * text and decides what a finding means for the cache.
 */
package io.cachegate.cache.sensitive;
