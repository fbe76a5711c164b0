package io.cachegate.cli.analyze;

import static io.cachegate.cli.analyze.TrafficAnalyzerTest.analyze;
import static io.cachegate.cli.analyze.TrafficAnalyzerTest.list;
import static io.cachegate.cli.analyze.TrafficAnalyzerTest.map;
import static io.cachegate.cli.analyze.TrafficAnalyzerTest.settings;
import static io.cachegate.cli.analyze.TrafficAnalyzerTest.textless;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The gateway's own logs as the analyzer's input: the sampled-request lines ({@code time, tenant, body}) and the
 * access log's lines with {@code include_text}, whose root {@code model} is not a request body. The lines are
 * written as the gateway writes them (AccessLogIT reads the same shapes from a running gateway).
 */
class RequestLogParserTest {

    private static final String BODY = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
            + "\"content\":\"Where is my parcel, mail [REDACTED:email]\"}]}";

    private final RequestLogParser parser = textless();

    @Test
    void sampledLine_isTheTenantsRequest() {
        ParsedLine line = parser.parse(1, "{\"time\":\"2026-12-01T19:00:00Z\",\"tenant\":\"acme\",\"body\":" + BODY + "}");

        assertThat(line).isInstanceOf(ParsedLine.Request.class);
        LoggedRequest request = ((ParsedLine.Request) line).request();
        assertThat(request.tenant()).isEqualTo("acme");
        assertThat(request.request().model()).isEqualTo("llama-3.1-8b");
    }

    @Test
    void accessLineWithText_isItsBody_notTheLineItself() {
        String access = "{\"time\":\"2026-12-01T19:00:00Z\",\"type\":\"access\",\"request_id\":\"r1\",\"tenant\":\"acme\","
                + "\"route\":\"0\",\"endpoint\":\"chat\",\"model\":\"llama-3.1-8b\",\"status\":200,\"cache\":\"miss\","
                + "\"body\":" + BODY + ",\"answer\":\"It is on its way.\"}";

        ParsedLine line = parser.parse(7, access);

        assertThat(line).isInstanceOf(ParsedLine.Request.class);
        assertThat(((ParsedLine.Request) line).request().tenant()).isEqualTo("acme");
        assertThat(((ParsedLine.Request) line).request().request().promptText()).contains("Where is my parcel");
    }

    @Test
    void accessLineWithoutText_andAuditLine_areNotRequests_andSayWhy() {
        ParsedLine access = parser.parse(2, "{\"type\":\"access\",\"tenant\":\"acme\",\"model\":\"m\",\"status\":200}");
        ParsedLine audit = parser.parse(3, "{\"type\":\"audit\",\"action\":\"purge\",\"status\":200}");

        assertThat(((ParsedLine.Malformed) access).reason()).contains("include_text");
        assertThat(((ParsedLine.Malformed) audit).reason()).contains("'audit' line");
    }

    @Test
    void analyze_aMixedGatewayLog_countsTheRequestsOfBothForms() throws Exception {
        String sampled = "{\"time\":\"t\",\"tenant\":\"acme\",\"body\":" + BODY + "}";
        String access = "{\"time\":\"t\",\"type\":\"access\",\"tenant\":\"acme\",\"model\":\"llama-3.1-8b\",\"status\":200,"
                + "\"body\":" + BODY + "}";
        String audit = "{\"time\":\"t\",\"type\":\"audit\",\"action\":\"reload\",\"status\":200}";

        Map<String, Object> doc = analyze(String.join("\n", sampled, access, audit), settings(), Optional.empty(),
                parser);

        assertThat(doc.get("requests")).isEqualTo(2L);
        assertThat(map(doc, "overall").get("exact_repeat_share")).isEqualTo(0.5);
        assertThat(list(doc, "groups").get(0).get("tenant")).isEqualTo("acme");
        assertThat(map(doc, "malformed").get("count")).isEqualTo(1L);
    }
}
