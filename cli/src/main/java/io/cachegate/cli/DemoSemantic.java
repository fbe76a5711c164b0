package io.cachegate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The demo's semantic part: a short warm phase in which several phrasings of a few questions reach the backend
 * (each a miss whose fresh answer is compared with its near entries': the explorations that give the error budget
 * its evidence, and the answer groups its neighbourhood agreement reads), then new rephrasings answered by meaning,
 * then the route's evidence as {@code /admin/stats} gives it: verdicts, the audited wrong rate and its always-valid
 * bound against the budget. The simulator answers every phrasing of a topic alike (an answer book), as a backend
 * answering by meaning would, so that a hit by meaning can be judged right or wrong at all.
 */
final class DemoSemantic {

    /** Per topic: its label, then phrasings for the warm phase. */
    private static final String[][] WARM = {
        {"capital", "What is the capital of France?", "Which city is the capital of France?",
            "What's France's capital city?", "Name the capital of France."},
        {"reverse", "How do I reverse a list in Python?", "How to reverse a Python list?",
            "What is the way to reverse a list in Python?", "Reverse a list in Python: how?"},
        {"http429", "What does HTTP status 429 mean?", "What is HTTP error 429?",
            "Meaning of the HTTP 429 status code?", "What does a 429 response mean in HTTP?"},
        {"hamlet", "Summarise the plot of Hamlet in one sentence.", "Summarise Hamlet's plot in one sentence.",
            "Give a one-sentence summary of the plot of Hamlet.", "In one sentence, what is the plot of Hamlet?"},
        {"boiling", "What is the boiling point of water at sea level?", "At what temperature does water boil at sea level?",
            "What's water's boiling point at sea level?", "Boiling point of water at sea level?"},
    };
    /** Rephrasings never sent before, each with its topic. */
    private static final String[][] REPHRASED = {
        {"capital", "Which city is France's capital?"}, {"reverse", "How would I reverse a list in Python?"},
        {"http429", "What does status code 429 mean in HTTP?"}, {"hamlet", "Sum up the plot of Hamlet in one sentence."},
        {"boiling", "What is water's boiling point at sea level?"}, {"capital", "Tell me the capital city of France."},
        {"reverse", "In Python, how do I reverse a list?"},
    };

    private DemoSemantic() {
    }

    /**
     * The simulator's answer book: every phrasing of a topic gets the topic's answer, those of this part and
     * {@code workload}'s ({topic, phrasing} pairs: the demo's first part). A phrasing the book lacked would be
     * generated afresh, and its cached answer, unlike its topic's, would count as a wrong verdict for the phrasings
     * near it.
     */
    static Path writeAnswers(Path dir, String[][]... workload) throws IOException {
        StringBuilder tsv = new StringBuilder("text\tlabel\n");
        for (String[] topic : WARM) {
            for (int i = 1; i < topic.length; i++) {
                tsv.append(topic[i]).append('\t').append(topic[0]).append('\n');
            }
        }
        for (String[][] pairs : workload) {
            for (String[] r : pairs) {
                tsv.append(r[1]).append('\t').append(r[0]).append('\n');
            }
        }
        for (String[] r : REPHRASED) {
            tsv.append(r[1]).append('\t').append(r[0]).append('\n');
        }
        return Files.writeString(dir.resolve("demo-answers.tsv"), tsv);
    }

    /** @param send sends one chat request and gives its answer's X-Cache (with layer) and similarity */
    static void run(OpenAIClient gateway, String model, int adminPort, Sender send) throws InterruptedException {
        int warm = 0;
        int warmByMeaning = 0;
        for (String[] topic : WARM) {
            for (int i = 1; i < topic.length; i++) {
                warmByMeaning += send.send(gateway, params(model, topic[i]))[0].equals("HIT (semantic)") ? 1 : 0;
                warm++;
                DemoCommand.awaitSemanticWrites(adminPort);
            }
        }
        Thread.sleep(300); // explorations compare answers in the background
        System.out.printf("%nBy meaning: %d phrasings of %d questions sent first (%d answered by meaning once several "
                + "cached phrasings agreed; each miss's fresh answer is compared with its near entries', the evidence of "
                + "the error budget), then %d new rephrasings:%n", warm, WARM.length, warmByMeaning, REPHRASED.length);
        int byMeaning = 0;
        for (String[] r : REPHRASED) {
            String[] answer = send.send(gateway, params(model, r[1]));
            boolean hit = answer[0].equals("HIT (semantic)");
            byMeaning += hit ? 1 : 0;
            System.out.printf("  %-48s %s%n", "\"" + r[1] + "\"", hit ? "answered by meaning (similarity " + answer[1]
                    + ")" : answer[0].startsWith("HIT") ? answer[0] : answer[0] + ": went upstream");
        }
        Thread.sleep(500); // the audits of those hits run after them
        JsonNode semantic = stats(adminPort).path("semantic");
        JsonNode route = firstRoute(semantic.path("verdicts").path("byRoute"));
        double budget = semantic.path("maxErrorRate").asDouble();
        System.out.printf("  answered by meaning: %d of %d; served on the estimate (budget_delta 0 here) at "
                + "max_error_rate %.2f%n", byMeaning, REPHRASED.length, budget);
        if (route != null) {
            long audited = route.path("audited").asLong();
            System.out.printf(Locale.ROOT, "  evidence: %d explorations (%d wrong), %d audits of hits (%d wrong): "
                            + "audited wrong rate %s, its always-valid 95%% bound %.1f%% against the budget %.1f%%%n",
                    route.path("explored").asLong(), route.path("exploredWrong").asLong(), audited,
                    route.path("auditedWrong").asLong(), audited == 0 ? "–"
                            : String.format(Locale.ROOT, "%.1f%%", 100 * route.path("wrongHitRate").asDouble()),
                    100 * route.path("upperBound").asDouble(), 100 * budget);
            System.out.println("  (a bound that proves 1% takes about 500 verdicts without a wrong one: the default "
                    + "policy, budget_delta 0.05, serves nothing by meaning until a route's verdicts prove it)");
        }
    }

    private static ChatCompletionCreateParams params(String model, String prompt) {
        return ChatCompletionCreateParams.builder().model(model).addUserMessage(prompt).temperature(0.0).build();
    }

    private static JsonNode stats(int adminPort) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + "/admin/stats")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new ObjectMapper().readTree(r.body());
        } catch (IOException | InterruptedException e) {
            return new ObjectMapper().createObjectNode();
        }
    }

    private static JsonNode firstRoute(JsonNode byRoute) {
        java.util.Iterator<JsonNode> routes = byRoute.elements();
        return routes.hasNext() ? routes.next() : null;
    }

    /** Sends one request through the SDK: {X-Cache with its layer, similarity}. */
    interface Sender {
        String[] send(OpenAIClient client, ChatCompletionCreateParams params);
    }
}
