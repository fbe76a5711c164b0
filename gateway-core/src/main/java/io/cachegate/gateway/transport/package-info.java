/** The choice of Netty transport (native epoll or NIO), kept in one place. */
package io.cachegate.gateway.transport;
