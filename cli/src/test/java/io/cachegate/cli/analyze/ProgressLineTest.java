package io.cachegate.cli.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressLineTest {

    @Test
    void update_drawsTheShareReadInPlace_andFinishEndsTheLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressLine progress = new ProgressLine(new PrintStream(bytes, true, StandardCharsets.UTF_8), 1000);

        progress.update(500, 12_345);
        progress.update(600, 12_346); // within the redraw interval: not drawn
        progress.finish();

        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(out).startsWith("\ranalyze [##########          ]  50%  12,345 lines").endsWith(System.lineSeparator());
        assertThat(out).doesNotContain("12,346");
    }

    @Test
    void finish_withoutAnyUpdate_printsNothing() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new ProgressLine(new PrintStream(bytes, true, StandardCharsets.UTF_8), 1000).finish();
        assertThat(bytes.size()).isZero();
    }
}
