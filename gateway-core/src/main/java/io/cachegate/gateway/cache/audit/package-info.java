/**
 * Whether semantic hits are right: spot-check audits of served hits, explorations of candidates that were not
 * served, and the verdicts they file for the error budget ({@link io.cachegate.cache.semantic.HitEvidence}).
 */
package io.cachegate.gateway.cache.audit;
