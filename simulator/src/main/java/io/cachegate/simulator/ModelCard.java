package io.cachegate.simulator;

import java.util.Objects;

/**
 * The model card a replica reports for one served model id in {@code GET /v1/models}: its {@code root} (the
 * weights' name or path; the id by default, as vLLM reports it) and an optional {@code revision}. A gateway keys
 * its cache on the card, so changing it at runtime ({@code POST /sim/models/{id}}) simulates a model swap.
 *
 * @param id       a served model id
 * @param root     the weights' name or path; not empty
 * @param revision the weights' revision, or null for none (then {@code /v1/models} has no {@code revision} field)
 */
public record ModelCard(String id, String root, String revision) {

    public ModelCard {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(root, "root");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("a model card's id must not be empty");
        }
        if (root.isEmpty()) {
            throw new IllegalArgumentException("the root of model " + id + " must not be empty");
        }
        if (revision != null && revision.isEmpty()) {
            throw new IllegalArgumentException("the revision of model " + id + " must not be empty (omit it for none)");
        }
    }

    /** The card vLLM reports when nothing is said: root = id, no revision. */
    public static ModelCard of(String id) {
        return new ModelCard(id, id, null);
    }

    /**
     * Parses the CLI form {@code ID=[ROOT][@REVISION]}: {@code llama=meta-llama/Llama-3.1-8B@r2},
     * {@code llama=@r2} (root = id) or {@code llama=/models/llama} (no revision).
     */
    public static ModelCard parse(String spec) {
        int eq = spec.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("a model card is ID=[ROOT][@REVISION], e.g. llama-3.1-8b=@r2; was '"
                    + spec + "'");
        }
        String id = spec.substring(0, eq);
        String card = spec.substring(eq + 1);
        int at = card.lastIndexOf('@');
        String root = at < 0 ? card : card.substring(0, at);
        String revision = at < 0 ? null : card.substring(at + 1);
        return new ModelCard(id, root.isEmpty() ? id : root, revision);
    }

    /**
     * What answers generated under this card carry as {@code system_fingerprint} (OpenAI's field for "the backend
     * configuration changed"): the revision, else the root; null for the default card, so that answers stay as
     * vLLM writes them unless a card was set.
     */
    String fingerprint() {
        if (revision != null) {
            return revision;
        }
        return root.equals(id) ? null : root;
    }
}
