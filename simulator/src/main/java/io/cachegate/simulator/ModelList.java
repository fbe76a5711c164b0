package io.cachegate.simulator;

import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;

/** The body of {@code GET /v1/models} in vLLM's ModelList / ModelCard / ModelPermission shape; built once at start. */
final class ModelList {

    static final int MAX_MODEL_LEN = 8192;

    private ModelList() {
    }

    static String json(List<String> models, long created) {
        StringBuilder out = new StringBuilder(512 * models.size());
        out.append("{\"object\":\"list\",\"data\":[");
        for (int i = 0; i < models.size(); i++) {
            String quoted = Json.quote(models.get(i));
            if (i > 0) {
                out.append(',');
            }
            out.append("{\"id\":").append(quoted)
                    .append(",\"object\":\"model\",\"created\":").append(created)
                    .append(",\"owned_by\":\"vllm\",\"root\":").append(quoted)
                    .append(",\"parent\":null,\"max_model_len\":").append(MAX_MODEL_LEN)
                    .append(",\"permission\":[{\"id\":\"modelperm-")
                    .append(RequestHash.of("modelperm", new TextNode(models.get(i))).idHex())
                    .append("\",\"object\":\"model_permission\",\"created\":").append(created)
                    .append(",\"allow_create_engine\":false,\"allow_sampling\":true,\"allow_logprobs\":true")
                    .append(",\"allow_search_indices\":false,\"allow_view\":true,\"allow_fine_tuning\":false")
                    .append(",\"organization\":\"*\",\"group\":null,\"is_blocking\":false}]}");
        }
        return out.append("]}").toString();
    }
}
