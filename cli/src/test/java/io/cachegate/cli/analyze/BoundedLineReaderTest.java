package io.cachegate.cli.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import org.junit.jupiter.api.Test;

class BoundedLineReaderTest {

    @Test
    void readLine_everyLineEnd_andALastLineWithoutOne() throws Exception {
        BoundedLineReader reader = new BoundedLineReader(new StringReader("a\nb\r\nc\rd\n\ne"), 10);

        assertThat(reader.readLine()).isEqualTo("a");
        assertThat(reader.readLine()).isEqualTo("b");
        assertThat(reader.readLine()).isEqualTo("c");
        assertThat(reader.readLine()).isEqualTo("d");
        assertThat(reader.readLine()).isEmpty();
        assertThat(reader.readLine()).isEqualTo("e");
        assertThat(reader.readLine()).isNull();
    }

    @Test
    void readLine_tooLong_isSkippedToItsEnd_andTheNextLineReadWhole() throws Exception {
        BoundedLineReader reader = new BoundedLineReader(new StringReader("x".repeat(200_000) + "\nnext"), 100);

        assertThat(reader.readLine()).isSameAs(BoundedLineReader.TOO_LONG);
        assertThat(reader.readLine()).isEqualTo("next");
        assertThat(reader.readLine()).isNull();
    }
}
