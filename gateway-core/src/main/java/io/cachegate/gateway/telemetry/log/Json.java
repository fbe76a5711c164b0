package io.cachegate.gateway.telemetry.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The logs' one JSON factory (with a codec, so trees can be written) and a line written into bytes. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** What writes one line's object; it starts and ends the object itself. */
    @FunctionalInterface
    interface Fields {
        void write(JsonGenerator out) throws IOException;
    }

    private Json() {
    }

    /** The line {@code fields} write, as UTF-8 bytes. */
    static byte[] line(int sizeHint, Fields fields) {
        ByteArrayBuilder bytes = new ByteArrayBuilder(sizeHint);
        try (JsonGenerator out = MAPPER.getFactory().createGenerator(bytes)) {
            fields.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // into memory: only a bug gets here
        }
        return bytes.toByteArray();
    }
}
