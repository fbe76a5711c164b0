/**
 * The OpenAI side of the gateway without any Netty type: endpoints, the parsed request model, the
 * strict parser, and the error taxonomy ({@link io.cachegate.gateway.api.ErrorKind}) that maps every
 * failure to one status and OpenAI error body.
 */
package io.cachegate.gateway.api;
