/**
 * Sensitive-data detection over text that would be cached: e-mail addresses, phone numbers, payment cards
 * (Luhn), IBANs (mod 97), US SSNs, secrets (API-key prefixes, AWS key ids and secret keys, JWTs, PEM private keys)
 * and the policy's own RE2 patterns. The text is folded once ({@code FoldedText}: NFKC, Unicode digits, dashes and
 * spaces as ASCII, zero-width characters removed), then read in one pass with checks that start only at a few
 * trigger characters; a detector reports which kinds matched, never the matched text. No Netty, no JSON: the
 * gateway extracts the text and decides what a finding means for the cache.
 */
package io.cachegate.cache.sensitive;
