package io.cachegate.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The labelled streams {@code eval-semantic --replay} replays: intent sets (the answer is the intent's), the same
 * with another answer structure ({@code :merged}, two intents sharing one answer; {@code :split}, each intent's
 * queries split between two answers by a hash of the text, so neighbours of one intent often disagree), and
 * paraphrase pairs turned into streams (the answer is the text's group: texts joined by positive pairs; every
 * text of a negative pair is a hard negative of its partner). Duplicate texts are dropped (they would be exact
 * hits). Out-of-scope ({@code oos}) intent rows answer alone.
 */
final class BudgetStreams {

    /** A named stream's texts and answers, shuffled with the seed and cut to the limit. */
    record Stream(String name, List<String> texts, List<String> answers) {
    }

    private BudgetStreams() {
    }

    /**
     * @param spec {@code banking77 | clinc150 | clinc150val | qqp | mrpc | sick}, optionally {@code :merged} or
     *             {@code :split} (intent sets only), optionally {@code @OFFSET} (rows of the seeded shuffle to skip:
     *             the intent rows are shuffled as {@code eval-semantic --seed} shuffles them, so {@code
     *             banking77@8000} are the rows the shipped fits never saw)
     */
    static Stream load(Path data, String spec, long seed, int limit) throws IOException {
        return load(data, spec, seed, null, limit);
    }

    /**
     * The same, with the rows the spec selects (after {@code @OFFSET}, before the limit) shuffled again with {@code
     * streamSeed} when it is not null: another order of the same rows (e.g. {@code banking77@8000}, unseen by the
     * shipped fits, in an order no run measured before), cut to {@code limit} after the shuffle.
     */
    static Stream load(Path data, String spec, long seed, Long streamSeed, int limit) throws IOException {
        String name = spec;
        int offset = 0;
        int at = name.indexOf('@');
        if (at >= 0) {
            offset = Integer.parseInt(name.substring(at + 1));
            name = name.substring(0, at);
        }
        String variant = "label";
        int colon = name.indexOf(':');
        if (colon >= 0) {
            variant = name.substring(colon + 1);
            name = name.substring(0, colon);
        }
        boolean intentSet = !List.of("qqp", "mrpc", "sick").contains(name);
        if (!List.of("label", "merged", "split").contains(variant) || (!intentSet && !variant.equals("label"))) {
            throw new IllegalArgumentException("unknown answer structure '" + variant + "' of " + name
                    + ": label, merged or split, and only for the intent sets");
        }
        Map<String, String> answers = switch (name) {
            case "banking77" -> intents(data.resolve("banking77_train.tsv"), variant, seed);
            case "clinc150" -> intents(data.resolve("clinc150_train.tsv"), variant, seed);
            case "clinc150val" -> intents(data.resolve("clinc150_val.tsv"), variant, seed);
            case "qqp" -> pairs(data.resolve("qqp_dev.tsv"), 12_000, 8_000);
            case "mrpc" -> pairs(data.resolve("mrpc_pairs.tsv"), 0, 6_000);
            case "sick" -> pairs(data.resolve("sick_pairs.tsv"), 0, 10_000);
            default -> throw new IllegalArgumentException("unknown stream '" + name
                    + "': banking77, clinc150, clinc150val, qqp, mrpc or sick, with :merged or :split for the "
                    + "intent sets");
        };
        List<String> texts = new ArrayList<>(answers.keySet());
        if (!intentSet) {
            Collections.shuffle(texts, new Random(seed)); // intent rows come shuffled as eval-semantic's --seed does
        }
        if (streamSeed == null) {
            texts = texts.subList(Math.min(offset, texts.size()), Math.min(texts.size(), offset + limit));
        } else {
            texts = new ArrayList<>(texts.subList(Math.min(offset, texts.size()), texts.size()));
            Collections.shuffle(texts, new Random(streamSeed));
            texts = texts.subList(0, Math.min(texts.size(), limit));
        }
        List<String> answerList = texts.stream().map(answers::get).toList();
        return new Stream(spec, List.copyOf(texts), answerList);
    }

    private static Map<String, String> intents(Path file, String variant, long seed) throws IOException {
        List<EvalTsv.Query> rows = EvalTsv.queries(file, seed, 0, Integer.MAX_VALUE);
        List<String> intents = rows.stream().map(EvalTsv.Query::intent).distinct().sorted().toList();
        Map<String, String> answers = new LinkedHashMap<>();
        for (EvalTsv.Query q : rows) {
            String key = q.text().strip().toLowerCase(Locale.ROOT);
            if (answers.containsKey(key)) {
                continue;
            }
            String answer;
            if (q.outOfScope()) {
                answer = "oos " + key;
            } else {
                answer = switch (variant) {
                    case "label" -> q.intent();
                    case "merged" -> "merged " + intents.indexOf(q.intent()) / 2;
                    case "split" -> q.intent() + " " + Math.floorMod(key.hashCode(), 2);
                    default -> throw new IllegalArgumentException("unknown answer structure '" + variant
                            + "': label, merged or split");
                };
            }
            answers.put(q.text(), answer);
        }
        return answers;
    }

    /** Texts of {@code limit} pairs from {@code offset}, grouped by positive pairs (union-find). */
    private static Map<String, String> pairs(Path file, int offset, int limit) throws IOException {
        List<EvalTsv.Pair> rows = EvalTsv.pairs(file, 0, offset, limit);
        Map<String, String> parent = new HashMap<>();
        Set<String> seen = new HashSet<>();
        List<String> order = new ArrayList<>();
        for (EvalTsv.Pair p : rows) {
            for (String t : List.of(p.textA(), p.textB())) {
                String key = t.strip().toLowerCase(Locale.ROOT);
                if (seen.add(key)) {
                    order.add(t);
                    parent.put(t, t);
                }
            }
            if (p.same() && parent.containsKey(p.textA()) && parent.containsKey(p.textB())) {
                parent.put(root(parent, p.textA()), root(parent, p.textB()));
            }
        }
        Map<String, String> answers = new LinkedHashMap<>();
        for (String t : order) {
            answers.put(t, "group " + root(parent, t));
        }
        return answers;
    }

    private static String root(Map<String, String> parent, String t) {
        String r = t;
        while (!parent.get(r).equals(r)) {
            r = parent.get(r);
        }
        parent.put(t, r);
        return r;
    }
}
