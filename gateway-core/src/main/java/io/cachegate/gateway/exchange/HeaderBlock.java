package io.cachegate.gateway.exchange;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Response headers encoded once and shared by every answer that carries them (a stored entry's content type, length
 * and origin): the {@code name: value} lines as HTTP/1.1 bytes, and the same headers for whoever reads them
 * ({@link TemplatedHeaders}). Immutable.
 */
public final class HeaderBlock {

    private final HttpHeaders headers;
    private final List<AsciiString> names;
    private final byte[] encoded;

    /**
     * A block of {@code headers}; values are validated as any header's are (no CR, LF or other control character),
     * names are taken as given (the caller's constants).
     */
    public static HeaderBlock of(Map<AsciiString, CharSequence> headers) {
        HttpHeaders validated = DefaultHttpHeadersFactory.headersFactory().withNameValidation(false).newHeaders();
        headers.forEach(validated::set);
        return new HeaderBlock(validated, List.copyOf(headers.keySet()));
    }

    private HeaderBlock(HttpHeaders headers, List<AsciiString> names) {
        this.headers = headers;
        this.names = names;
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            // As Netty's encoder writes them: one byte per char, '?' for what ASCII cannot hold.
            out.writeBytes(h.getKey().toString().getBytes(StandardCharsets.US_ASCII));
            out.write(':');
            out.write(' ');
            out.writeBytes(h.getValue().toString().getBytes(StandardCharsets.US_ASCII));
            out.write('\r');
            out.write('\n');
        }
        this.encoded = out.toByteArray();
    }

    /** Whether {@code name} is one of this block's headers (case-insensitive, as header names are). */
    boolean has(CharSequence name) {
        for (AsciiString n : names) {
            if (n.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** The block's headers; read only by convention (no caller changes them). */
    HttpHeaders headers() {
        return headers;
    }

    int size() {
        return names.size();
    }

    /** The encoded lines; not to be changed. */
    public byte[] encoded() {
        return encoded;
    }
}
