package io.cachegate.gateway.server;

import io.cachegate.gateway.quota.HeadPass;

/**
 * What {@link HeadCheck} learnt from the last request head it let through on one connection (or HTTP/2 stream),
 * for the handlers after it: the tenant, which {@link BodyIntake} charges the body to, and the {@link HeadPass},
 * which {@link ProxyRequestHandler} hands to the request's exchange. One slot is enough: the next head is decoded
 * only after the previous request is whole. Confined to the channel's event loop; a pass still held when the
 * connection ends is released then.
 */
final class CheckedHead {

    private String tenant;
    private HeadPass pass;

    /** Records the head let through; a pass no one took (there should be none) is released first. */
    void set(String tenant, HeadPass pass) {
        release();
        this.tenant = tenant;
        this.pass = pass;
    }

    /** The tenant of the last head let through, or null before the first. */
    String tenant() {
        return tenant;
    }

    /** Takes the pass for the request's exchange; null when the tenant has no limits or it was taken already. */
    HeadPass take() {
        HeadPass taken = pass;
        pass = null;
        return taken;
    }

    /** Gives the pass back: the request was refused, or its connection ended, before an exchange took it. */
    void release() {
        if (pass != null) {
            pass.release();
            pass = null;
        }
    }
}
