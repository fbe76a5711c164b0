/**
 * Per-tenant limits ({@code tenants[].limits}): a Bucket4j token bucket of requests and one of tokens per tenant,
 * in this gateway or shared through Redis, a count of the tenant's requests in flight, and the stage that answers
 * 429 {@code rate_limit_exceeded} with OpenAI's {@code x-ratelimit-*} headers. The buckets outlive policy
 * generations: a reload re-configures them and never refills anyone's quota.
 */
package io.cachegate.gateway.quota;
