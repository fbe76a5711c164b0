package io.cachegate.simulator;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

/** JSON string quoting for the hand-built response bodies (faster than a generator per token). */
final class Json {

    private Json() {
    }

    static String quote(String value) {
        return appendQuoted(new StringBuilder(value.length() + 2), value).toString();
    }

    static StringBuilder appendQuoted(StringBuilder out, String value) {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(value, out);
        return out.append('"');
    }
}
