package io.cachegate.admission;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The waiting requests of one class, a FIFO lane per tenant, served in start-time fair order between the lanes
 * (start-time fair queuing, Goyal, Vin and Cheng, SIGCOMM 1996). A request's start tag is the later of the class's
 * virtual time and its lane's last finish tag; its finish tag is the start plus its token cost divided by its
 * tenant's weight; the head is the lane head with the smallest start tag, the older first on a tie; the virtual time
 * is the start tag of the last request dispatched. So a tenant sending ten times the others gets its weight's share
 * of the class's token capacity while the others wait, not all of it, and a tenant back from idle starts at the
 * virtual time: no credit is banked while idle, and one dispatched at once still counts against its next turn. With
 * one lane (no tenants, or fairness off) this is FIFO. Arrival order is kept as well, for expiry and the oldest
 * wait. Guarded by the controller's lock.
 */
final class TenantQueues {

    /** One tenant's waiting requests, oldest first. */
    private static final class Lane {
        final ArrayDeque<Ticket> waiting = new ArrayDeque<>();
        double lastFinish;
        long tokens;
        double weight = 1;
    }

    private final LinkedHashSet<Ticket> arrivals = new LinkedHashSet<>();
    private final Map<String, Lane> lanes = new HashMap<>();
    private double virtualTime;

    boolean isEmpty() {
        return arrivals.isEmpty();
    }

    int size() {
        return arrivals.size();
    }

    /** Queues {@code ticket} in the lane {@code lane} (its tenant, or one lane for all) at {@code weight}. */
    void add(Ticket ticket, String lane, double weight) {
        Lane l = lanes.computeIfAbsent(lane, k -> new Lane());
        long cost = Math.max(1, ticket.request().tokens());
        l.weight = weight;
        ticket.lane = lane;
        ticket.startTag = Math.max(virtualTime, l.lastFinish);
        l.lastFinish = ticket.startTag + cost / weight;
        l.waiting.addLast(ticket);
        l.tokens += ticket.request().tokens();
        arrivals.add(ticket);
    }

    /** The next request in fair order, or null. */
    Ticket head() {
        Ticket best = null;
        for (Lane l : lanes.values()) {
            Ticket t = l.waiting.peekFirst();
            if (t == null) {
                continue;
            }
            if (best == null || t.startTag < best.startTag
                    || t.startTag == best.startTag && t.sequence < best.sequence) {
                best = t;
            }
        }
        return best;
    }

    /** The request waiting longest, whatever its lane, or null. */
    Ticket oldest() {
        return arrivals.isEmpty() ? null : arrivals.iterator().next();
    }

    /** Removes a waiting request: dispatched, expired, cancelled or evicted. False when it was not waiting here. */
    boolean remove(Ticket ticket) {
        if (!arrivals.remove(ticket)) {
            return false;
        }
        Lane l = lanes.get(ticket.lane);
        if (l.waiting.peekFirst() == ticket) {
            l.waiting.pollFirst();
        } else {
            l.waiting.remove(ticket);
        }
        l.tokens -= ticket.request().tokens();
        forgetIdle(ticket.lane, l);
        return true;
    }

    /** {@code ticket}, removed as the head, is dispatched: the virtual time moves to its start. */
    void dispatched(Ticket ticket) {
        virtualTime = Math.max(virtualTime, ticket.startTag);
        lanes.entrySet().removeIf(e -> e.getValue().waiting.isEmpty() && e.getValue().lastFinish <= virtualTime);
    }

    /**
     * An empty lane is kept while its last finish tag is ahead of the virtual time: a request dispatched at once
     * still counts against its tenant's next one. Once behind, the next one starts at the virtual time anyway.
     */
    private void forgetIdle(String lane, Lane l) {
        if (l.waiting.isEmpty() && l.lastFinish <= virtualTime) {
            lanes.remove(lane);
        }
    }

    /**
     * The class's tokens a new request of {@code cost} tokens in {@code lane} waits behind in fair order: all of its
     * own lane's, and of each other lane what it is served while this lane's tokens up to the request are: at most
     * its weight's share of them.
     */
    long tokensAhead(String lane, long cost, double weight) {
        Lane own = lanes.get(lane);
        long mine = (own == null ? 0 : own.tokens) + cost;
        double ahead = mine;
        for (Map.Entry<String, Lane> e : lanes.entrySet()) {
            if (!e.getKey().equals(lane)) {
                Lane l = e.getValue(); // an empty lane adds nothing
                ahead += Math.min(l.tokens, mine * l.weight / weight);
            }
        }
        return (long) Math.ceil(ahead) - cost;
    }

    /**
     * The newest request of the lane furthest over its fair share of the queued tokens, when {@code lane} (about to
     * add {@code cost} tokens at {@code weight}) would stay within its own: what a full queue turns away first.
     * Null when no other lane is over its share, or when {@code lane} itself would be over.
     */
    Ticket overShare(String lane, long cost, double weight) {
        double totalWeight = weight;
        long totalTokens = cost;
        for (Map.Entry<String, Lane> e : lanes.entrySet()) {
            totalTokens += e.getValue().tokens;
            if (!e.getKey().equals(lane) && !e.getValue().waiting.isEmpty()) {
                totalWeight += e.getValue().weight;
            }
        }
        Lane own = lanes.get(lane);
        long mine = (own == null ? 0 : own.tokens) + cost;
        if (mine > totalTokens * weight / totalWeight) {
            return null;
        }
        Lane worst = null;
        double worstExcess = 0;
        for (Map.Entry<String, Lane> e : lanes.entrySet()) {
            Lane l = e.getValue();
            double excess = l.tokens - totalTokens * l.weight / totalWeight;
            if (!e.getKey().equals(lane) && excess > worstExcess) {
                worst = l;
                worstExcess = excess;
            }
        }
        return worst == null ? null : worst.waiting.peekLast();
    }

    /** Waiting requests in arrival order, oldest first. */
    Iterator<Ticket> iterator() {
        return arrivals.iterator();
    }
}
