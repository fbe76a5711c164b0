package io.cachegate.gateway.exchange;

/** Backend answers for stage tests, as an OpenAI-compatible server writes them. */
public final class Answers {

    /** A storable chat completion: finish_reason stop, 5 prompt and 2 completion tokens. */
    public static final String HELLO = chatCompletion("Hello there");

    private Answers() {
    }

    public static String chatCompletion(String content) {
        return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"llama-3.1-8b\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + content + "\"},"
                + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,"
                + "\"total_tokens\":7}}";
    }
}
