package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The scan that searches line feeds against the byte-by-byte scan it replaced, which says what it must find. */
class HeadScanTest {

    @Test
    void examples() {
        assertThat(scan("POST /v1 HTTP/1.1\r\nHost: a\r\n\r\n", 5)).isEqualTo("POST /v1 HTTP/1.1|false");
        assertThat(scan("\r\n\r\nGET / HTTP/1.1\r\nA: 1\r\n b\r\n\r\n", 3)).isEqualTo("GET / HTTP/1.1|true");
        assertThat(scan("GET / HTTP/1.1\r\n\tA: 1\r\n\r\n", 16)).isEqualTo("GET / HTTP/1.1|true");
        assertThat(scan("GET / HTTP/1.1\n\n", 1)).isEqualTo("GET / HTTP/1.1|false");
    }

    @Test
    void sameAsByteByByte_onRandomHeadsInRandomPieces() {
        SplittableRandom random = new SplittableRandom(16);
        String alphabet = "\r\n \t:aZ/1.";
        for (int n = 0; n < 200_000; n++) {
            StringBuilder head = new StringBuilder();
            int length = random.nextInt(1, 60);
            for (int i = 0; i < length; i++) {
                head.append(random.nextInt(4) == 0 ? "\r\n" : String.valueOf(alphabet.charAt(random.nextInt(alphabet.length()))));
            }
            int piece = random.nextInt(1, head.length() + 1);
            assertThat(scan(head.toString(), piece)).as("%s in pieces of %d", head, piece)
                    .isEqualTo(byteByByte(head.toString()));
        }
    }

    /** The head fed in pieces of {@code piece} bytes, at an offset inside a larger buffer as the decoder hands it. */
    private static String scan(String head, int piece) {
        byte[] bytes = ("xyz" + head).getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf buffer = Unpooled.wrappedBuffer(bytes);
        HeadScan scan = new HeadScan();
        for (int from = 3; from < bytes.length; from += piece) {
            scan.scan(buffer, from, Math.min(bytes.length, from + piece));
        }
        return scan.requestLine() + "|" + scan.folded();
    }

    /** The scan as it was: every byte visited. */
    private static String byteByByte(String head) {
        boolean sawLine = false;
        boolean lineDone = false;
        boolean lastWasLf = false;
        boolean folded = false;
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < head.length(); i++) {
            char b = head.charAt(i);
            if (lastWasLf && sawLine && (b == ' ' || b == '\t')) {
                folded = true;
            }
            if (sawLine && !lineDone) {
                if (b == '\n') {
                    lineDone = true;
                } else if (b != '\r') {
                    line.append(b);
                }
            } else if (!sawLine && b != '\r' && b != '\n' && b != ' ' && b != '\t') {
                line.append(b);
            }
            if (b != '\r' && b != '\n' && b != ' ' && b != '\t') {
                sawLine = true;
            }
            lastWasLf = b == '\n';
        }
        return line + "|" + folded;
    }
}
