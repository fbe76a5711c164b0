package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VllmMetricsTest {

    private static final String SCRAPE = """
            # HELP vllm:num_requests_running Number of requests in model execution batches.
            # TYPE vllm:num_requests_running gauge
            vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 7.0
            # HELP vllm:num_requests_waiting Number of requests waiting to be processed.
            # TYPE vllm:num_requests_waiting gauge
            vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
            vllm:num_requests_waiting{engine="1",model_name="odd \\"name\\" {x}"} 2.0 1712345678000
            # TYPE vllm:kv_cache_usage_perc gauge
            vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.42
            vllm:kv_cache_usage_perc{engine="1",model_name="x"} 0.17
            vllm:prompt_tokens_total{model_name="x"} 12345.0
            process_cpu_seconds_total 12.5
            """;

    @Test
    void parse_sumsWaitingAndRunning_takesTheHighestKvUsage() {
        assertThat(VllmMetrics.parse(SCRAPE)).contains(new VllmLoad(5.0, 7.0, 0.42));
    }

    @Test
    void parse_legacyGpuCacheName_isAccepted() {
        assertThat(VllmMetrics.parse("vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.9\n"))
                .contains(new VllmLoad(0, 0, 0.9));
    }

    @Test
    void parse_noLoadGauges_isEmpty() {
        assertThat(VllmMetrics.parse("process_cpu_seconds_total 1\n# vllm:num_requests_waiting 3\n")).isEmpty();
        assertThat(VllmMetrics.parse("")).isEmpty();
    }

    @Test
    void parse_malformedLines_areSkipped() {
        String text = "vllm:num_requests_waiting{model_name=\"unterminated 4\n"
                + "vllm:num_requests_waiting{} abc\n"
                + "vllm:num_requests_waiting NaN\n"
                + "vllm:num_requests_waiting 1\r\n"
                + "vllm:kv_cache_usage_perc 1.7\n";
        assertThat(VllmMetrics.parse(text)).contains(new VllmLoad(1, 0, 1.0));
    }
}
