package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code server.max_connections} (3 here) and {@code server.max_connections_per_address} (2): a connection over
 * either is closed at accept and counted, while one under them is served. Clients come from 127.0.0.1, .2 and .3
 * (all loopback on Linux) to tell the per-address cap from the total one.
 */
class ConnectionCapsIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server: {max_connections: 3, max_connections_per_address: 2}
            """);

    @Test
    void overPerAddressAndTotalCaps_refusedAtAccept_underServed() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            held.add(served("127.0.0.1"));
            held.add(served("127.0.0.1"));
            assertThat(refused("127.0.0.1")).as("third from one address").isTrue();
            held.add(served("127.0.0.2")); // another address, under the total: served
            assertThat(refused("127.0.0.3")).as("fourth in total").isTrue();
            String scrape = fixture.gateway().metrics().scrape();
            assertThat(scrape).contains("cachegate_connections_refused_total{reason=\"per_address\"} 1.0");
            assertThat(scrape).contains("cachegate_connections_refused_total{reason=\"total\"} 1.0");
            // The held ones are still served, and a closed one frees its place.
            for (Socket s : held) {
                assertThat(request(s)).isEqualTo(200);
            }
            held.remove(0).close();
            Socket again = null;
            for (int i = 0; i < 50 && again == null; i++) { // the close reaches the gateway a moment later
                try {
                    again = served("127.0.0.3");
                } catch (IOException stillFull) {
                    Thread.sleep(20);
                }
            }
            assertThat(again).isNotNull();
            held.add(again);
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** A connection from {@code local} that gets 200, kept open. */
    private static Socket served(String local) throws IOException {
        Socket s = open(local);
        try {
            int status = request(s);
            if (status != 200) {
                throw new IOException("status " + status);
            }
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** True when the gateway closes a connection from {@code local} without answering its request. */
    private static boolean refused(String local) throws IOException {
        try (Socket s = open(local)) {
            try {
                s.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", chat()));
                return s.getInputStream().read() == -1;
            } catch (IOException reset) {
                return true;
            }
        }
    }

    private static int request(Socket s) throws IOException {
        s.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", chat()));
        InputStream in = s.getInputStream();
        return RawHttp.read(in).status();
    }

    private static Socket open(String local) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(local), 0));
        s.connect(new InetSocketAddress("127.0.0.1", fixture.port()), 5000);
        s.setSoTimeout(15_000);
        return s;
    }

    private static byte[] chat() {
        return "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3}"
                .getBytes(StandardCharsets.UTF_8);
    }
}
