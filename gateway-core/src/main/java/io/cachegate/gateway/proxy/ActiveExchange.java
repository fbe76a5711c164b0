package io.cachegate.gateway.proxy;

/** A request of one client connection that is being answered; cancelled when the client leaves. */
@FunctionalInterface
public interface ActiveExchange {
    void cancel();
}
