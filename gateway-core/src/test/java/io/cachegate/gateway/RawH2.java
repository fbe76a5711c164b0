package io.cachegate.gateway;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * An HTTP/2 client at the frame level over a plain socket (prior knowledge), for what a well-behaved client never
 * does: more streams than the server allows, a window never opened, a body over the limit beside other streams.
 * Header blocks are (de)compressed with Netty's HPACK; frames are written and read by hand.
 */
final class RawH2 implements Closeable {

    static final int DATA = 0;
    static final int HEADERS = 1;
    static final int RST_STREAM = 3;
    static final int SETTINGS = 4;
    static final int PING = 6;
    static final int GOAWAY = 7;
    static final int WINDOW_UPDATE = 8;
    static final int END_STREAM = 0x1;
    static final int ACK = 0x1;
    static final int END_HEADERS = 0x4;
    static final int REFUSED_STREAM = 0x7;

    /** One frame as read. */
    record Frame(int type, int flags, int stream, byte[] payload) {

        boolean endsStream() {
            return (type == DATA || type == HEADERS) && (flags & END_STREAM) != 0 || type == RST_STREAM;
        }

        int errorCode() {
            return ByteBuffer.wrap(payload).getInt(type == GOAWAY ? 4 : 0);
        }
    }

    /** A stream's answer: its headers, its body, or the RST_STREAM code that ended it (-1 when none). */
    static final class Answer {
        Http2Headers headers;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        int reset = -1;
        boolean ended;

        String status() {
            return headers == null ? null : headers.status().toString();
        }

        String header(String name) {
            CharSequence value = headers.get(name);
            return value == null ? null : value.toString();
        }

        String text() {
            return body.toString(StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    final Map<Integer, Answer> answers = new HashMap<>();
    /** Whether DATA read is given back to the server's windows at once (a client that keeps reading). */
    boolean openWindows = true;

    private RawH2(Socket socket) throws IOException {
        this.socket = socket;
        // Buffered: a frame's head is read a byte at a time, and each read of the socket's own stream is a system call.
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
        this.out = socket.getOutputStream();
    }

    /** A connection with the preface and an empty SETTINGS frame sent. */
    static RawH2 connect(int port) throws IOException {
        RawH2 h2 = new RawH2(RawHttp.connect(port));
        h2.out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        h2.frame(SETTINGS, 0, 0, new byte[0]);
        return h2;
    }

    /** Opens a stream with a request head; {@code end} when it has no body. */
    void headers(int stream, String method, String path, boolean end, String... nameValues) throws IOException {
        Http2Headers headers = new DefaultHttp2Headers().method(method).path(path).scheme("http")
                .authority("127.0.0.1");
        for (int i = 0; i < nameValues.length; i += 2) {
            headers.add(nameValues[i], nameValues[i + 1]);
        }
        ByteBuf block = Unpooled.buffer();
        try {
            encoder.encodeHeaders(stream, headers, block);
            byte[] bytes = new byte[block.readableBytes()];
            block.readBytes(bytes);
            frame(HEADERS, END_HEADERS | (end ? END_STREAM : 0), stream, bytes);
        } catch (Http2Exception e) {
            throw new IOException(e);
        } finally {
            block.release();
        }
    }

    /** A JSON POST in one go: head, then the body in DATA frames of at most 16 KiB. */
    void post(int stream, String path, byte[] body) throws IOException {
        headers(stream, "POST", path, false, "content-type", "application/json");
        data(stream, body, true);
    }

    void data(int stream, byte[] body, boolean end) throws IOException {
        int at = 0;
        do {
            int n = Math.min(16_384, body.length - at);
            byte[] part = java.util.Arrays.copyOfRange(body, at, at + n);
            at += n;
            frame(DATA, end && at == body.length ? END_STREAM : 0, stream, part);
        } while (at < body.length);
    }

    void ping() throws IOException {
        frame(PING, 0, 0, new byte[8]);
    }

    void windowUpdate(int stream, int increment) throws IOException {
        frame(WINDOW_UPDATE, 0, stream, ByteBuffer.allocate(4).putInt(increment).array());
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        byte[] head = {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
            (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
            (byte) stream};
        byte[] whole = java.util.Arrays.copyOf(head, head.length + payload.length);
        System.arraycopy(payload, 0, whole, head.length, payload.length);
        out.write(whole); // one write a frame: the socket's stream is unbuffered
        out.flush();
    }

    /**
     * Reads the next frame and keeps what it says: SETTINGS acknowledged, header blocks decoded (always, in order:
     * HPACK's table is the connection's), DATA added to its stream's answer and, with {@link #openWindows}, given
     * back to both windows.
     */
    Frame next() throws IOException {
        int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int stream = in.readInt() & 0x7fffffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        Frame f = new Frame(type, flags, stream, payload);
        if (type == SETTINGS && (flags & ACK) == 0) {
            frame(SETTINGS, ACK, 0, new byte[0]);
        }
        if (stream != 0 && (type == HEADERS || type == DATA || type == RST_STREAM)) {
            Answer answer = answers.computeIfAbsent(stream, s -> new Answer());
            if (type == HEADERS) {
                answer.headers = decode(stream, payload);
            } else if (type == DATA) {
                answer.body.write(payload);
                if (openWindows && length > 0) {
                    windowUpdate(0, length);
                    windowUpdate(stream, length);
                }
            } else {
                answer.reset = f.errorCode();
            }
            answer.ended |= f.endsStream();
        }
        return f;
    }

    /** Reads until every one of {@code streams} has ended; throws on GOAWAY or end of input. */
    Map<Integer, Answer> await(int... streams) throws IOException {
        while (true) {
            boolean all = true;
            for (int s : streams) {
                Answer a = answers.get(s);
                all &= a != null && a.ended;
            }
            if (all) {
                return answers;
            }
            Frame f = next();
            if (f.type() == GOAWAY) {
                throw new EOFException("GOAWAY, error " + f.errorCode());
            }
        }
    }

    /** Reads until a frame of {@code type} on {@code stream} arrives; throws on end of input. */
    Frame awaitFrame(int type, int stream) throws IOException {
        while (true) {
            Frame f = next();
            if (f.type() == type && f.stream() == stream) {
                return f;
            }
        }
    }

    private Http2Headers decode(int stream, byte[] block) throws IOException {
        ByteBuf buf = Unpooled.wrappedBuffer(block);
        try {
            return decoder.decodeHeaders(stream, buf);
        } catch (Http2Exception e) {
            throw new IOException(e);
        } finally {
            buf.release();
        }
    }

    void soTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
