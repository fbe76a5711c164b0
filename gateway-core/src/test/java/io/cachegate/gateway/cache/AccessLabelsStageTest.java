package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.cache.exact.UserDigest;
import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.StageChain;
import io.cachegate.gateway.request.AuthenticateStage;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** X-Cache-Labels: syntax (400), held by the key (403), and what the cache stages are left with. */
class AccessLabelsStageTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            tenants:
              - id: acme
                api_keys: [{key: hr-key, labels: [hr, finance]}, plain-key]
            cache:
              exact: {store: memory, ttl: 1h}
            """);
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void handle_labelsTheKeyHolds_areDeclared_andTheKeysLabelsAreHeld() {
        Exchange x = run(POLICY, "hr-key", "hr , finance");

        assertThat(next.count(x)).isEqualTo(1);
        EntryAccess access = x.get(EntryAccess.KEY);
        assertThat(access.declared()).containsExactlyInAnyOrder("hr", "finance");
        assertThat(access.held()).containsExactlyInAnyOrder("hr", "finance");
        assertThat(access.enforced()).isTrue();
    }

    @Test
    void handle_labelsInSeveralFields_areOneList_eachEnforced() {
        Exchange both = exchanges.chat(HELLO, "Authorization", "Bearer hr-key", "X-Cache-Labels", "hr",
                "X-Cache-Labels", "finance");
        chain(POLICY).start(both);
        assertThat(both.<EntryAccess>get(EntryAccess.KEY).declared()).containsExactlyInAnyOrder("hr", "finance");

        Exchange second = exchanges.chat(HELLO, "Authorization", "Bearer plain-key", "X-Cache-Labels", "",
                "X-Cache-Labels", "finance");
        chain(POLICY).start(second);
        assertThat(Exchanges.written(second).status()).as("an empty first field hides nothing").isIn(400, 403);

        Exchange lacking = exchanges.chat(HELLO, "Authorization", "Bearer hr-key", "X-Cache-Labels", "hr",
                "X-Cache-Labels", "legal");
        chain(POLICY).start(lacking);
        assertThat(Exchanges.written(lacking).status()).as("a label the key lacks, in the second field").isEqualTo(403);
    }

    @Test
    void handle_labelTheKeyDoesNotHold_is403_namingNoEntry() {
        Exchange x = run(POLICY, "plain-key", "hr");

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.status()).isEqualTo(403);
        assertThat(written.body()).contains("\"code\":\"label_not_permitted\"", "\"type\":\"invalid_request_error\"")
                .doesNotContain("hr-key").doesNotContain("entry");
    }

    @Test
    void handle_labelInAnotherCase_isNotHeld() {
        assertThat(Exchanges.written(run(POLICY, "hr-key", "HR")).status()).isEqualTo(403);
    }

    @Test
    void handle_noHeader_declaresNothing_butHoldsTheKeysLabels() {
        Exchange x = run(POLICY, "hr-key", null);

        EntryAccess access = x.get(EntryAccess.KEY);
        assertThat(access.declared()).isEmpty();
        assertThat(access.held()).containsExactlyInAnyOrder("hr", "finance");
    }

    @Test
    void handle_userField_isRecordedAsItsDigest() {
        Exchange x = exchanges.chat(HELLO.replace("{\"model\"", "{\"user\":\"alice@example.com\",\"model\""),
                "Authorization", "Bearer hr-key");
        chain(POLICY).start(x);

        assertThat(x.get(EntryAccess.KEY).userDigest()).isEqualTo(UserDigest.of("alice@example.com"))
                .doesNotContain("alice");
    }

    @Test
    void handle_withoutApiKeys_labelsAreRecordedNotEnforced() {
        Exchange x = run(Exchanges.MEMORY_CACHE_POLICY, null, "hr");

        EntryAccess access = x.get(EntryAccess.KEY);
        assertThat(next.count(x)).isEqualTo(1);
        assertThat(access.declared()).containsExactly("hr");
        assertThat(access.enforced()).isFalse();
        assertThat(access.readable().unrestricted()).isTrue();
    }

    @Test
    void labels_malformed_are400() {
        for (String bad : new String[] {"hr,", ",hr", "hr,,finance", "h r", "hr;finance", "x".repeat(65), "é"}) {
            assertThatThrownBy(() -> AccessLabelsStage.labels(bad)).as(bad).isInstanceOf(ApiException.class)
                    .hasMessageContaining("X-Cache-Labels");
        }
        String tooMany = String.join(",", IntStream.range(0, 33).mapToObj(i -> "l" + i).toList());
        assertThatThrownBy(() -> AccessLabelsStage.labels(tooMany)).isInstanceOf(ApiException.class);
        assertThat(AccessLabelsStage.labels("a.b_c-1, hr")).isEqualTo(Set.of("a.b_c-1", "hr"));
        assertThat(AccessLabelsStage.labels("  ")).isEmpty();
    }

    @Test
    void handle_malformedHeader_is400() {
        Exchange x = run(POLICY, "hr-key", "hr;finance");
        assertThat(Exchanges.written(x).status()).isEqualTo(400);
        assertThat(next.called()).isFalse();
    }

    private Exchange run(Policy policy, String apiKey, String labels) {
        String[] headers = apiKey == null && labels == null ? new String[0]
                : apiKey == null ? new String[] {"X-Cache-Labels", labels}
                : labels == null ? new String[] {"Authorization", "Bearer " + apiKey}
                : new String[] {"Authorization", "Bearer " + apiKey, "X-Cache-Labels", labels};
        Exchange x = exchanges.chat(HELLO, headers);
        chain(policy).start(x);
        return x;
    }

    private StageChain chain(Policy policy) {
        return StageChain.of(new AuthenticateStage(policy), new AccessLabelsStage(policy), (x, n) -> next.proceed(x));
    }
}
