package io.cachegate.simulator;

import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;

/**
 * The body of {@code GET /v1/models} in vLLM's ModelList / ModelCard / ModelPermission shape, built from the current
 * {@link ModelCard}s; a card with a revision adds a {@code revision} field (vLLM's cards have none).
 */
final class ModelList {

    static final int MAX_MODEL_LEN = 8192;

    private ModelList() {
    }

    static String json(List<ModelCard> models, long created) {
        StringBuilder out = new StringBuilder(512 * models.size());
        out.append("{\"object\":\"list\",\"data\":[");
        for (int i = 0; i < models.size(); i++) {
            ModelCard card = models.get(i);
            if (i > 0) {
                out.append(',');
            }
            out.append("{\"id\":").append(Json.quote(card.id()))
                    .append(",\"object\":\"model\",\"created\":").append(created)
                    .append(",\"owned_by\":\"vllm\",\"root\":").append(Json.quote(card.root()))
                    .append(",\"parent\":null,\"max_model_len\":").append(MAX_MODEL_LEN);
            if (card.revision() != null) {
                out.append(",\"revision\":").append(Json.quote(card.revision()));
            }
            out.append(",\"permission\":[{\"id\":\"modelperm-")
                    .append(RequestHash.of("modelperm", new TextNode(card.id())).idHex())
                    .append("\",\"object\":\"model_permission\",\"created\":").append(created)
                    .append(",\"allow_create_engine\":false,\"allow_sampling\":true,\"allow_logprobs\":true")
                    .append(",\"allow_search_indices\":false,\"allow_view\":true,\"allow_fine_tuning\":false")
                    .append(",\"organization\":\"*\",\"group\":null,\"is_blocking\":false}]}");
        }
        return out.append("]}").toString();
    }
}
