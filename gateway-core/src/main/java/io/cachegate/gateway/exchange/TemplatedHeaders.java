package io.cachegate.gateway.exchange;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An answer's headers as a shared, pre-encoded {@link HeaderBlock} plus the answer's own (request id, {@code Age},
 * {@code Server-Timing}, what stages add), so that a hit encodes only what varies per request: the HTTP/1.1 encoder
 * copies the block's bytes ({@link #block()}) and encodes {@link #own()}. To everyone else it is one ordinary set of
 * headers: the answer's own are read and changed directly; reading a block header reads the block; any other use
 * (changing a block header, listing them all, HTTP/2) first copies the block into the answer's own headers, and from
 * then on they are plain headers with no block.
 */
public final class TemplatedHeaders extends HttpHeaders {

    private final HttpHeaders own;
    /** Null once copied into {@link #own}. */
    private HeaderBlock block;

    public TemplatedHeaders(HeaderBlock block, HttpHeaders own) {
        this.block = block;
        this.own = own;
    }

    /** The shared block the encoder copies, or null when its headers are in {@link #own()} now. */
    public HeaderBlock block() {
        return block;
    }

    /** The headers other than the block's (all of them once the block is copied in). */
    public HttpHeaders own() {
        return own;
    }

    /** All the headers as plain ones: the block copied in, once. */
    private HttpHeaders plain() {
        if (block != null) {
            HttpHeaders mine = own.copy();
            own.clear().add(block.headers()).add(mine); // the block's first, as the encoder writes them
            block = null;
        }
        return own;
    }

    /** The headers to change {@code name} in: the answer's own, unless the block holds it. */
    private HttpHeaders writable(CharSequence name) {
        return block != null && block.has(name) ? plain() : own;
    }

    /** The headers that hold {@code name}, if any does: the block's or the answer's own. */
    private HttpHeaders readable(CharSequence name) {
        return block != null && block.has(name) ? block.headers() : own;
    }

    // The answer's path: reads and writes of single headers.

    @Override
    public String get(String name) {
        return readable(name).get(name);
    }

    @Override
    public String get(CharSequence name) {
        return readable(name).get(name);
    }

    @Override
    public boolean contains(String name) {
        return readable(name).contains(name);
    }

    @Override
    public boolean contains(CharSequence name) {
        return readable(name).contains(name);
    }

    @Override
    public boolean containsValue(CharSequence name, CharSequence value, boolean ignoreCase) {
        return readable(name).containsValue(name, value, ignoreCase);
    }

    @Override
    public boolean contains(CharSequence name, CharSequence value, boolean ignoreCase) {
        return readable(name).contains(name, value, ignoreCase);
    }

    @Override
    public boolean contains(String name, String value, boolean ignoreCase) {
        return readable(name).contains(name, value, ignoreCase);
    }

    @Override
    public HttpHeaders set(String name, Object value) {
        writable(name).set(name, value);
        return this;
    }

    @Override
    public HttpHeaders set(CharSequence name, Object value) {
        writable(name).set(name, value);
        return this;
    }

    @Override
    public HttpHeaders setInt(CharSequence name, int value) {
        writable(name).setInt(name, value);
        return this;
    }

    @Override
    public HttpHeaders add(String name, Object value) {
        writable(name).add(name, value);
        return this;
    }

    @Override
    public HttpHeaders add(CharSequence name, Object value) {
        writable(name).add(name, value);
        return this;
    }

    @Override
    public HttpHeaders setAll(HttpHeaders headers) {
        if (block != null) {
            for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
                if (block.has(it.next().getKey())) {
                    plain();
                    break;
                }
            }
        }
        own.setAll(headers);
        return this;
    }

    @Override
    public boolean isEmpty() {
        return (block == null || block.size() == 0) && own.isEmpty();
    }

    @Override
    public Integer getInt(CharSequence name) {
        return readable(name).getInt(name);
    }

    @Override
    public int getInt(CharSequence name, int defaultValue) {
        return readable(name).getInt(name, defaultValue);
    }

    @Override
    public Short getShort(CharSequence name) {
        return readable(name).getShort(name);
    }

    @Override
    public short getShort(CharSequence name, short defaultValue) {
        return readable(name).getShort(name, defaultValue);
    }

    @Override
    public Long getTimeMillis(CharSequence name) {
        return readable(name).getTimeMillis(name);
    }

    @Override
    public long getTimeMillis(CharSequence name, long defaultValue) {
        return readable(name).getTimeMillis(name, defaultValue);
    }

    @Override
    public List<String> getAll(String name) {
        return readable(name).getAll(name);
    }

    @Override
    public List<String> getAll(CharSequence name) {
        return readable(name).getAll(name);
    }

    @Override
    public Iterator<String> valueStringIterator(CharSequence name) {
        return readable(name).valueStringIterator(name);
    }

    @Override
    public Iterator<? extends CharSequence> valueCharSequenceIterator(CharSequence name) {
        return readable(name).valueCharSequenceIterator(name);
    }

    // Listing them all sees plain headers.

    @Override
    public List<Map.Entry<String, String>> entries() {
        return plain().entries();
    }

    @Override
    @Deprecated // as HttpHeaders' own: iteratorAsString() is its replacement, which calls this
    public Iterator<Map.Entry<String, String>> iterator() {
        return plain().iterator();
    }

    @Override
    public Iterator<Map.Entry<CharSequence, CharSequence>> iteratorCharSequence() {
        return plain().iteratorCharSequence();
    }

    @Override
    public int size() {
        return plain().size();
    }

    @Override
    public Set<String> names() {
        return plain().names();
    }

    @Override
    public HttpHeaders add(String name, Iterable<?> values) {
        writable(name).add(name, values);
        return this;
    }

    @Override
    public HttpHeaders add(CharSequence name, Iterable<?> values) {
        writable(name).add(name, values);
        return this;
    }

    @Override
    public HttpHeaders add(HttpHeaders headers) {
        plain().add(headers);
        return this;
    }

    @Override
    public HttpHeaders addInt(CharSequence name, int value) {
        writable(name).addInt(name, value);
        return this;
    }

    @Override
    public HttpHeaders addShort(CharSequence name, short value) {
        writable(name).addShort(name, value);
        return this;
    }

    @Override
    public HttpHeaders set(String name, Iterable<?> values) {
        writable(name).set(name, values);
        return this;
    }

    @Override
    public HttpHeaders set(CharSequence name, Iterable<?> values) {
        writable(name).set(name, values);
        return this;
    }

    @Override
    public HttpHeaders set(HttpHeaders headers) {
        plain().set(headers);
        return this;
    }

    @Override
    public HttpHeaders setShort(CharSequence name, short value) {
        writable(name).setShort(name, value);
        return this;
    }

    @Override
    public HttpHeaders remove(String name) {
        writable(name).remove(name);
        return this;
    }

    @Override
    public HttpHeaders remove(CharSequence name) {
        writable(name).remove(name);
        return this;
    }

    @Override
    public HttpHeaders clear() {
        block = null;
        own.clear();
        return this;
    }

    @Override
    public HttpHeaders copy() {
        return plain().copy();
    }

    @Override
    public String toString() {
        return plain().toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HttpHeaders other && plain().equals(other instanceof TemplatedHeaders t ? t.plain() : other);
    }

    @Override
    public int hashCode() {
        return plain().hashCode();
    }
}
