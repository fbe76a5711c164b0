package io.cachegate.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The model cards one replica serves now, and the {@code GET /v1/models} body they make. Cards change at
 * runtime ({@code POST /sim/models/{id}}), so the body is rebuilt on each change rather than per request:
 * a probe reads a ready string, and a generation reads its model's fingerprint when it starts.
 */
final class ModelCards {

    private final List<String> ids;
    private final long created;
    private final Map<String, ModelCard> cards = new LinkedHashMap<>();
    private volatile Snapshot snapshot;

    /** The cards and body as of the last change; replaced whole, so readers need no lock. */
    private record Snapshot(Map<String, ModelCard> cards, String json) {
    }

    /** Every served id with its default card, except those {@code initial} gives a card for. */
    ModelCards(List<String> ids, List<ModelCard> initial, long created) {
        this.ids = List.copyOf(ids);
        this.created = created;
        for (String id : ids) {
            cards.put(id, ModelCard.of(id));
        }
        for (ModelCard card : initial) {
            cards.put(card.id(), card);
        }
        publish();
    }

    String modelsJson() {
        return snapshot.json;
    }

    /** The fingerprint of answers {@code id} generates now; null when its card is the default. */
    String fingerprint(String id) {
        ModelCard card = snapshot.cards.get(id);
        return card == null ? null : card.fingerprint();
    }

    ModelCard card(String id) {
        return snapshot.cards.get(id);
    }

    /** Replaces the card of a served model; false when the id is not served. */
    synchronized boolean set(ModelCard card) {
        if (!cards.containsKey(card.id())) {
            return false;
        }
        cards.put(card.id(), card);
        publish();
        return true;
    }

    private void publish() {
        List<ModelCard> ordered = new ArrayList<>(ids.size());
        for (String id : ids) {
            ordered.add(cards.get(id));
        }
        snapshot = new Snapshot(Map.copyOf(cards), ModelList.json(ordered, created));
    }
}
