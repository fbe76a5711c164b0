package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SseDoneScannerTest {

    private final SseDoneScanner scanner = new SseDoneScanner();

    @Test
    void scan_doneSplitAcrossChunks_isFound() {
        scan("data: {\"choices\":[{\"delta\":{}}]}\n\ndata: [DO");
        assertThat(scanner.found()).isFalse();
        scan("NE]\n\n");
        assertThat(scanner.found()).isTrue();
    }

    @Test
    void scan_noDone_isNotFound() {
        scan("data: {\"a\":[1,2]}\n\ndata: [DON\n\n");
        assertThat(scanner.found()).isFalse();
    }

    @Test
    void scan_repeatedBracket_stillMatches() {
        scan("[[DONE]");
        assertThat(scanner.found()).isTrue();
    }

    @Test
    void reset_afterFound_forgetsIt() {
        scan("data: [DONE]");
        scanner.reset();
        assertThat(scanner.found()).isFalse();
    }

    private void scan(String text) {
        ByteBuf buf = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
        try {
            scanner.scan(buf);
            assertThat(buf.readerIndex()).isZero();
        } finally {
            buf.release();
        }
    }
}
