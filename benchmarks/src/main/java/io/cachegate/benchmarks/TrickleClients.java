package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Clients that each declare a large request body and send all of it but its last byte, slowly: the partial bodies
 * a valid key could make a gateway hold. One thread drives them all over non-blocking sockets; a client the gateway
 * answers (a refusal) is read and left alone. Not thread-safe: one caller steps and closes them.
 */
final class TrickleClients implements AutoCloseable {

    /** One client: its socket, the bytes of its request it has sent, and the status the gateway answered (0: none). */
    private static final class Client {
        final SocketChannel channel;
        final ByteBuffer request;
        final ByteBuffer answer = ByteBuffer.allocate(512);
        int status;

        Client(SocketChannel channel, ByteBuffer request) {
            this.channel = channel;
            this.request = request;
        }
    }

    private final List<Client> clients = new ArrayList<>();
    private final int bodyBytes;

    /**
     * Connects {@code count} clients to {@code gateway}, the i-th with {@code keys[i % keys.size()]}, each request
     * declaring {@code bodyBytes} of body; nothing is sent yet.
     */
    TrickleClients(URI gateway, List<String> keys, int count, int bodyBytes) throws IOException {
        this.bodyBytes = bodyBytes;
        byte[] body = new byte[bodyBytes - 1]; // never the last byte: the body stays partial
        Arrays.fill(body, (byte) 'a');
        body[0] = '{';
        for (int i = 0; i < count; i++) {
            byte[] head = ("POST /v1/chat/completions HTTP/1.1\r\nHost: " + gateway.getHost() + "\r\n"
                    + "Content-Type: application/json\r\nAuthorization: Bearer " + keys.get(i % keys.size()) + "\r\n"
                    + "Content-Length: " + bodyBytes + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
            ByteBuffer request = ByteBuffer.allocate(head.length + body.length).put(head).put(body).flip();
            SocketChannel channel = SocketChannel.open(new InetSocketAddress(gateway.getHost(), gateway.getPort()));
            channel.configureBlocking(false);
            clients.add(new Client(channel, request));
        }
    }

    /**
     * Sends each unanswered client's request up to {@code share} (0..1) of its body, as far as the socket takes it,
     * and reads what the gateway answered.
     */
    void step(double share) throws IOException {
        for (Client c : clients) {
            if (c.status != 0) {
                continue;
            }
            read(c);
            int headLength = c.request.capacity() - (bodyBytes - 1);
            int upTo = (int) Math.min(c.request.capacity(), headLength + Math.round(share * (bodyBytes - 1)));
            if (c.status == 0 && c.request.position() < upTo) {
                ByteBuffer slice = c.request.duplicate().limit(upTo);
                try {
                    c.channel.write(slice);
                } catch (IOException closed) {
                    c.status = -1; // reset by the gateway: its answer, if any, was lost
                }
                c.request.position(slice.position());
            }
        }
    }

    private static void read(Client c) {
        try {
            int n = c.channel.read(c.answer);
            if (n < 0 && c.answer.position() == 0) {
                c.status = -1;
            }
        } catch (IOException e) {
            c.status = -1;
        }
        String text = new String(c.answer.array(), 0, c.answer.position(), StandardCharsets.ISO_8859_1);
        if (c.status == 0 && text.startsWith("HTTP/1.1 ") && text.length() >= 12) {
            c.status = Integer.parseInt(text.substring(9, 12));
        }
    }

    /** Clients by the gateway's answer: {@code 0} still sending (a body held), {@code -1} cut off, else the status. */
    Map<Integer, Integer> outcomes() {
        Map<Integer, Integer> out = new TreeMap<>();
        for (Client c : clients) {
            out.merge(c.status, 1, Integer::sum);
        }
        return out;
    }

    /** Body bytes sent by the clients still unanswered: what they ask the gateway to hold. */
    long bytesHeldAsked() {
        long sum = 0;
        for (Client c : clients) {
            if (c.status == 0) {
                sum += Math.max(0, c.request.position() - (c.request.capacity() - (bodyBytes - 1)));
            }
        }
        return sum;
    }

    @Override
    public void close() {
        for (Client c : clients) {
            try {
                c.channel.close();
            } catch (IOException ignored) {
                // closing is all that is left to do
            }
        }
    }
}
