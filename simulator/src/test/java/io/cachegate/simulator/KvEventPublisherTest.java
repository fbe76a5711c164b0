package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvEventPublisherTest {

    private static List<KvEvent> cleared() {
        return List.of(new KvEvent.AllBlocksCleared());
    }

    @Test
    void publish_queueFull_dropsCountsAndSkipsTheSequenceNumber() {
        try (KvEventPublisher publisher = new KvEventPublisher("127.0.0.1", 0, 100, 2)) {
            assertThat(publisher.publish(cleared())).isTrue(); // seq 0
            assertThat(publisher.publish(cleared())).isTrue(); // seq 1
            assertThat(publisher.publish(cleared())).isFalse(); // seq 2: the queue holds 2, dropped
            publisher.start();
            awaitPublished(publisher, 2); // the queue has room again
            assertThat(publisher.publish(cleared())).isTrue(); // seq 3

            awaitPublished(publisher, 3);
            assertThat(publisher.dropped()).isEqualTo(1);
            try (KvEventClient client = new KvEventClient(publisher.endpoint())) {
                assertThat(client.replay(publisher.replayEndpoint(), 0)).extracting(KvEventClient.Batch::seq)
                        .containsExactly(0L, 1L, 3L); // the gap a subscriber detects
            }
        }
    }

    @Test
    void open_givenPort_publishesThereAndReplaysOnTheNext() throws IOException {
        int port = freePortPair();
        try (KvEventPublisher publisher = KvEventPublisher.open("127.0.0.1", port, 10);
             KvEventClient client = new KvEventClient(publisher.endpoint())) {
            assertThat(publisher.endpoint()).isEqualTo("tcp://127.0.0.1:" + port);
            assertThat(publisher.replayEndpoint()).isEqualTo("tcp://127.0.0.1:" + (port + 1));
            // Until the subscription is live (ZeroMQ's slow joiner): one silent for 5 s is replaced, as a subscriber
            // does and as KvEventsTest does (CI saw one stay silent for 5 s here too), for 30 s at most.
            KvEventClient.Batch batch = null;
            long start = System.nanoTime();
            long subscribed = start;
            while (batch == null && System.nanoTime() - start < Duration.ofSeconds(30).toNanos()) {
                if (System.nanoTime() - subscribed > Duration.ofSeconds(5).toNanos()) {
                    client.resubscribe();
                    subscribed = System.nanoTime();
                }
                publisher.publish(cleared());
                batch = client.receive(Duration.ofMillis(100));
            }
            assertThat(batch).isNotNull();
            assertThat(batch.events()).containsExactly(java.util.Map.of("type", "AllBlocksCleared"));
        }
        // Closed: both ports are free again at once (linger 0), and the thread is gone.
        try (ServerSocket a = new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
             ServerSocket b = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
            assertThat(a.isBound() && b.isBound()).isTrue();
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("sim-kv-events"));
    }

    @Test
    void open_portTaken_failsNamingIt() throws IOException {
        int port = freePortPair();
        try (ServerSocket taken = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
            assertThat(taken.getLocalPort()).isEqualTo(port + 1);
            assertThatThrownBy(() -> KvEventPublisher.open("127.0.0.1", port, 10))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("127.0.0.1:" + port).hasMessageContaining(String.valueOf(port + 1));
        }
    }

    private static void awaitPublished(KvEventPublisher publisher, long count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (publisher.published() < count && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(publisher.published()).isEqualTo(count);
    }

    /** A port p with p + 1 free too (checked, then released: a race with other processes is unlikely). */
    static int freePortPair() throws IOException {
        for (int i = 0; i < 50; i++) {
            try (ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int p = first.getLocalPort();
                if (p < 65535) {
                    try (ServerSocket second = new ServerSocket(p + 1, 1, InetAddress.getLoopbackAddress())) {
                        return second.getLocalPort() - 1;
                    } catch (IOException taken) {
                        // try another
                    }
                }
            }
        }
        throw new IOException("no free port pair");
    }
}
