package io.cachegate.gateway.server;

/** A request of one client connection that is being answered; cancelled when the client leaves. */
interface ClientExchange {
    void cancel();
}
