package io.cachegate.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A vLLM-style KV-event publisher for tests: a PUB socket sending {@code [topic, seq, payload]} and a ROUTER socket
 * answering replay requests from the batches it keeps, as vllm/distributed/kv_events.py does. {@link #skip()} burns a
 * sequence number without sending (a lost message).
 */
public final class KvTestPublisher implements AutoCloseable {

    private final ZContext context = new ZContext();
    private final ZMQ.Socket pub;
    private final ZMQ.Socket router;
    private final int port;
    private final List<byte[]> sent = new ArrayList<>();
    private final Thread replays;
    private volatile boolean running = true;
    private long seq;
    private volatile int keep;

    public KvTestPublisher(int keep) {
        this.keep = keep;
        context.setLinger(0);
        pub = context.createSocket(SocketType.PUB);
        int p;
        ZMQ.Socket r;
        while (true) {
            p = pub.bindToRandomPort("tcp://127.0.0.1", 20_000, 60_000);
            r = context.createSocket(SocketType.ROUTER);
            try {
                r.bind("tcp://127.0.0.1:" + (p + 1));
                break;
            } catch (RuntimeException taken) {
                r.close();
                pub.unbind("tcp://127.0.0.1:" + p);
            }
        }
        port = p;
        router = r;
        router.setReceiveTimeOut(50);
        replays = new Thread(this::serveReplays, "test-replay");
        replays.start();
    }

    public String publish() {
        return "tcp://127.0.0.1:" + port;
    }

    public String replay() {
        return "tcp://127.0.0.1:" + (port + 1);
    }

    /** Sends one batch of events (each already packed by {@link Events}). */
    public synchronized void send(byte[] payload) {
        long s = seq++;
        synchronized (sent) {
            sent.add(payload);
        }
        pub.sendMore(new byte[0]);
        pub.sendMore(ByteBuffer.allocate(8).putLong(s).array());
        pub.send(payload);
    }

    /** Keeps the batch for replay but never sends it live: a message the subscriber missed. */
    public synchronized void skip(byte[] payload) {
        seq++;
        synchronized (sent) {
            sent.add(payload);
        }
    }

    /** From now on the replay keeps only the last {@code batches}: as if the buffer had turned over. */
    public void keep(int batches) {
        this.keep = batches;
    }

    /** The publisher restarts: its sequence starts again at 0 and its replay buffer is empty. */
    public synchronized void restart() {
        seq = 0;
        synchronized (sent) {
            sent.clear();
        }
    }

    private void serveReplays() {
        while (running) {
            ZMsg request = ZMsg.recvMsg(router);
            if (request == null) {
                continue;
            }
            byte[] identity = request.pop().getData();
            request.pop();
            long from = ByteBuffer.wrap(request.pop().getData()).getLong();
            List<byte[]> copy;
            synchronized (sent) {
                copy = List.copyOf(sent);
            }
            for (int s = (int) Math.max(from, copy.size() - keep); s < copy.size(); s++) {
                router.sendMore(identity);
                router.sendMore(new byte[0]);
                router.sendMore(ByteBuffer.allocate(8).putLong(s).array());
                router.send(copy.get(s));
            }
            router.sendMore(identity);
            router.sendMore(new byte[0]);
            router.sendMore(ByteBuffer.allocate(8).putLong(-1).array());
            router.send(new byte[0]);
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            replays.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        context.close();
    }

    /** Packs batches in vLLM's current form: the batch an array, each event a map tagged by "type". */
    public static final class Events {
        private final List<Object[]> events = new ArrayList<>();

        public Events stored(long[] hashes, Long parent, int[] tokens, int blockSize, String medium) {
            events.add(new Object[] {"BlockStored", hashes, parent, tokens, blockSize, medium});
            return this;
        }

        public Events removed(long[] hashes, String medium) {
            events.add(new Object[] {"BlockRemoved", hashes, medium});
            return this;
        }

        public Events cleared() {
            events.add(new Object[] {"AllBlocksCleared"});
            return this;
        }

        public byte[] pack() {
            try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
                p.packArrayHeader(3);
                java.time.Instant now = java.time.Instant.now();
                p.packDouble(now.getEpochSecond() + now.getNano() / 1e9);
                p.packArrayHeader(events.size());
                for (Object[] e : events) {
                    String type = (String) e[0];
                    switch (type) {
                        case "BlockStored" -> {
                            p.packMapHeader(8);
                            p.packString("type").packString(type);
                            p.packString("block_hashes");
                            longs(p, (long[]) e[1]);
                            p.packString("parent_block_hash");
                            if (e[2] == null) {
                                p.packNil();
                            } else {
                                p.packLong((Long) e[2]);
                            }
                            p.packString("token_ids");
                            int[] tokens = (int[]) e[3];
                            p.packArrayHeader(tokens.length);
                            for (int t : tokens) {
                                p.packInt(t);
                            }
                            p.packString("block_size").packInt((Integer) e[4]);
                            p.packString("lora_id").packNil();
                            p.packString("medium").packString((String) e[5]);
                            p.packString("lora_name").packNil();
                        }
                        case "BlockRemoved" -> {
                            p.packMapHeader(3);
                            p.packString("type").packString(type);
                            p.packString("block_hashes");
                            longs(p, (long[]) e[1]);
                            p.packString("medium").packString((String) e[2]);
                        }
                        default -> {
                            p.packMapHeader(1);
                            p.packString("type").packString(type);
                        }
                    }
                }
                p.packInt(0);
                return p.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static void longs(MessageBufferPacker p, long[] values) throws IOException {
            p.packArrayHeader(values.length);
            for (long v : values) {
                p.packLong(v);
            }
        }
    }
}
