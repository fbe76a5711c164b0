package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A KV-event subscriber as a consumer of vLLM's events writes one: a SUB socket, msgpack decoding with
 * msgpack-core, and the replay socket asked through a DEALER. Decodes strictly: any other shape fails the test.
 */
final class KvEventClient implements AutoCloseable {

    /** One decoded batch: {@code events} are the maps as sent, values as Long, String, null or List. */
    record Batch(long seq, double ts, List<Map<String, Object>> events, long rank) {
    }

    private final ZMQ.Context context = ZMQ.context(1);
    private final String endpoint;
    private ZMQ.Socket sub;
    private final Map<String, ZMQ.Socket> dealers = new LinkedHashMap<>();

    KvEventClient(String endpoint) {
        this.endpoint = endpoint;
        sub = subscriber();
    }

    private ZMQ.Socket subscriber() {
        ZMQ.Socket socket = context.socket(SocketType.SUB);
        socket.setLinger(0);
        socket.subscribe(new byte[0]);
        socket.connect(endpoint);
        return socket;
    }

    /** Replaces the SUB socket with a new one (a new connection and subscription), as a subscriber does when none arrives. */
    void resubscribe() {
        sub.close();
        sub = subscriber();
    }

    /** The next batch on the SUB socket, or null after {@code timeout}. */
    Batch receive(Duration timeout) {
        sub.setReceiveTimeOut((int) timeout.toMillis());
        ZMsg message = ZMsg.recvMsg(sub);
        if (message == null) {
            return null;
        }
        assertThat(message.size()).as("frames: topic, seq, payload").isEqualTo(3);
        assertThat(message.pop().size()).as("topic").isZero();
        long seq = ByteBuffer.wrap(message.pop().getData()).getLong();
        return decode(seq, message.pop().getData());
    }

    /**
     * Every kept batch from {@code start} on, asked through one DEALER per replay endpoint (kept, as a subscriber
     * keeps its replay socket); asserts the end marker arrives. JeroMQ now and then loses a request sent on a newly
     * connected DEALER (docs/simulator.md), so a request with no answer within 2 s is sent again on a new DEALER,
     * as a subscriber must.
     */
    List<Batch> replay(String endpoint, long start) {
        for (int attempt = 0; attempt < 3; attempt++) {
            ZMQ.Socket dealer = dealers.computeIfAbsent(endpoint, this::dealer);
            dealer.sendMore(new byte[0]);
            dealer.send(ByteBuffer.allocate(8).putLong(start).array(), 0);
            dealer.setReceiveTimeOut(2_000);
            ZMsg first = ZMsg.recvMsg(dealer);
            if (first == null) {
                dealers.remove(endpoint).close(); // a late answer must not reach the next request
                continue;
            }
            dealer.setReceiveTimeOut(5_000);
            List<Batch> batches = new ArrayList<>();
            for (ZMsg message = first; ; message = ZMsg.recvMsg(dealer)) {
                assertThat(message).as("the rest of a replay within 5 s").isNotNull();
                assertThat(message.size()).isEqualTo(3);
                assertThat(message.pop().size()).as("empty delimiter").isZero();
                long seq = ByteBuffer.wrap(message.pop().getData()).getLong();
                byte[] payload = message.pop().getData();
                if (seq == -1) {
                    assertThat(payload).as("end marker payload").isEmpty();
                    return batches;
                }
                batches.add(decode(seq, payload));
            }
        }
        throw new AssertionError("no replay answer from " + endpoint + " in 3 attempts");
    }

    private ZMQ.Socket dealer(String endpoint) {
        ZMQ.Socket socket = context.socket(SocketType.DEALER);
        socket.setLinger(0);
        socket.connect(endpoint);
        return socket;
    }

    static Batch decode(long seq, byte[] payload) {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
            assertThat(in.unpackArrayHeader()).as("batch [ts, events, rank]").isEqualTo(3);
            double ts = in.unpackDouble();
            int count = in.unpackArrayHeader();
            List<Map<String, Object>> events = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int fields = in.unpackMapHeader();
                Map<String, Object> event = new LinkedHashMap<>();
                for (int f = 0; f < fields; f++) {
                    event.put(in.unpackString(), plain(in.unpackValue()));
                }
                events.add(event);
            }
            long rank = in.unpackLong();
            assertThat(in.hasNext()).isFalse();
            return new Batch(seq, ts, events, rank);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Object plain(Value value) {
        if (value.isNilValue()) {
            return null;
        }
        if (value.isIntegerValue()) {
            return value.asIntegerValue().asLong();
        }
        if (value.isStringValue()) {
            return value.asStringValue().asString();
        }
        if (value.isArrayValue()) {
            List<Object> list = new ArrayList<>();
            value.asArrayValue().forEach(v -> list.add(plain(v)));
            return list;
        }
        throw new AssertionError("unexpected msgpack value " + value);
    }

    /** Applies a batch to a replica's block set, as an index does. */
    static void apply(Batch batch, Set<Long> blocks) {
        for (Map<String, Object> event : batch.events()) {
            switch ((String) event.get("type")) {
                case "BlockStored" -> blocks.addAll(longs(event.get("block_hashes")));
                case "BlockRemoved" -> longs(event.get("block_hashes")).forEach(blocks::remove);
                case "AllBlocksCleared" -> blocks.clear();
                default -> throw new AssertionError("unknown event " + event);
            }
        }
    }

    @SuppressWarnings("unchecked")
    static List<Long> longs(Object list) {
        return (List<Long>) list;
    }

    @Override
    public void close() {
        dealers.values().forEach(ZMQ.Socket::close);
        sub.close();
        context.term();
    }
}
