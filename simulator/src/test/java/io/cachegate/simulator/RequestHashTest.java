package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestHashTest {

    @Test
    void ofRequest_keyOrderAndNumberForm_doNotMatter() {
        RequestHash a = RequestHash.ofRequest(json("{\"model\":\"m\",\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"));
        RequestHash b = RequestHash.ofRequest(json("{\"messages\":[{\"content\":\"x\",\"role\":\"user\"}],\"temperature\":0.0,\"model\":\"m\"}"));

        assertThat(b.idHex()).isEqualTo(a.idHex());
        assertThat(b.seed()).isEqualTo(a.seed());
    }

    @Test
    void ofRequest_streamFields_areIgnored() {
        RequestHash plain = RequestHash.ofRequest(json("{\"model\":\"m\",\"prompt\":\"x\"}"));
        RequestHash streamed = RequestHash.ofRequest(json(
                "{\"model\":\"m\",\"prompt\":\"x\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));

        assertThat(streamed.idHex()).isEqualTo(plain.idHex());
    }

    @Test
    void ofRequest_samplingParameters_matter() {
        RequestHash cold = RequestHash.ofRequest(json("{\"model\":\"m\",\"prompt\":\"x\",\"temperature\":0}"));
        RequestHash warm = RequestHash.ofRequest(json("{\"model\":\"m\",\"prompt\":\"x\",\"temperature\":0.7}"));

        assertThat(warm.idHex()).isNotEqualTo(cold.idHex());
    }

    @Test
    void countWords_whitespaceRuns_countOnce() {
        assertThat(CompletionRequest.countWords("  hello \n\t world  ")).isEqualTo(2);
        assertThat(CompletionRequest.countWords("")).isZero();
    }
}
