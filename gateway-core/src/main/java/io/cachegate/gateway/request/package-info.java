/**
 * The first stages: which API a request calls, who sends it (API key to tenant), {@code GET /v1/models},
 * strict parsing of the OpenAI body, and the route that decides backend, class and cache rules.
 */
package io.cachegate.gateway.request;
