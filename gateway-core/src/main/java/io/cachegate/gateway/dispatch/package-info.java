/**
 * What happens to a request no cache answered: its traffic class and token cost, admission control (queue,
 * early rejection, overload), the choice between the route's backend and its fallback, and the reserved
 * replica the upstream exchange then calls. Built per backend from the policy; wires the {@code admission}
 * and {@code routing} modules into the Netty request path.
 */
package io.cachegate.gateway.dispatch;
