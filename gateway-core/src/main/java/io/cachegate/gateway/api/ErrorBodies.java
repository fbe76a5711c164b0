package io.cachegate.gateway.api;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.nio.charset.StandardCharsets;

/** Renders the OpenAI error body {@code {"error":{"message","type","param","code"}}}. */
public final class ErrorBodies {

    private ErrorBodies() {
    }

    public static byte[] render(ErrorKind kind, String message, String param) {
        StringBuilder json = new StringBuilder(96 + message.length());
        json.append("{\"error\":{\"message\":\"");
        quote(json, message);
        json.append("\",\"type\":\"").append(kind.type()).append("\",\"param\":");
        if (param == null) {
            json.append("null");
        } else {
            json.append('"');
            quote(json, param);
            json.append('"');
        }
        json.append(",\"code\":\"").append(kind.code()).append("\"}}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] render(ApiException e) {
        return render(e.kind(), e.getMessage(), e.param());
    }

    private static void quote(StringBuilder out, String text) {
        JsonStringEncoder.getInstance().quoteAsString(text, out);
    }
}
