package io.cachegate.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A TCP relay between the gateway and a backend that counts the bytes the backend sent on to the
 * gateway, with small socket buffers of its own, so a test can see how far the gateway read ahead.
 */
final class CountingRelay implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;

    private final ServerSocket server;
    private final URI target;
    private final AtomicLong toGateway = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    CountingRelay(URI target) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.setReceiveBufferSize(BUFFER);
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        this.acceptor = new Thread(this::acceptLoop, "relay-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Bytes the backend has sent that the relay passed on to the gateway. */
    long bytesToGateway() {
        return toGateway.get();
    }

    /** True once no byte has moved towards the gateway for half a second (the client stopped reading). */
    BooleanSupplier settled() {
        AtomicLong last = new AtomicLong(-1);
        AtomicLong since = new AtomicLong(System.nanoTime());
        return () -> {
            long now = bytesToGateway();
            if (now != last.get()) {
                last.set(now);
                since.set(System.nanoTime());
                return false;
            }
            return System.nanoTime() - since.get() > 500_000_000L;
        };
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket gatewaySide = server.accept();
                gatewaySide.setSendBufferSize(BUFFER);
                Socket backendSide = new Socket();
                backendSide.setReceiveBufferSize(BUFFER);
                backendSide.connect(new InetSocketAddress(target.getHost(), target.getPort()), 2000);
                sockets.add(gatewaySide);
                sockets.add(backendSide);
                pump(gatewaySide, backendSide, null);
                pump(backendSide, gatewaySide, toGateway);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicLong counter) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) != -1) {
                    out.write(buf, 0, n);
                    if (counter != null) {
                        counter.addAndGet(n);
                    }
                }
            } catch (IOException ignored) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(CountingRelay::closeQuietly);
    }
}
