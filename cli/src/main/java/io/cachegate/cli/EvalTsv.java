package io.cachegate.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Reads the evaluation TSVs of {@code eval-semantic}: one header line, then tab-separated columns; extra
 * columns are ignored. A slice is taken with an offset and a limit, after an optional seeded shuffle (the
 * intent files are sorted by intent, so a prefix of them holds only a few intents).
 */
final class EvalTsv {

    /** A labelled pair: {@code label} 1 means the two texts ask the same thing. */
    record Pair(String textA, String textB, boolean same) {
    }

    /** A query and its intent; {@code oos} marks an out-of-scope query. */
    record Query(String text, String intent) {

        static final String OUT_OF_SCOPE = "oos";

        boolean outOfScope() {
            return OUT_OF_SCOPE.equals(intent);
        }
    }

    private EvalTsv() {
    }

    static List<Pair> pairs(Path file, long seed, int offset, int limit) throws IOException {
        List<Pair> pairs = new ArrayList<>();
        for (String[] row : rows(file, 3)) {
            String label = row[2].trim();
            if (!label.equals("0") && !label.equals("1")) {
                throw new IllegalArgumentException(file + ": label must be 0 or 1, was '" + label + "'");
            }
            pairs.add(new Pair(row[0], row[1], label.equals("1")));
        }
        return slice(pairs, seed, offset, limit);
    }

    static List<Query> queries(Path file, long seed, int offset, int limit) throws IOException {
        List<Query> queries = new ArrayList<>();
        for (String[] row : rows(file, 2)) {
            queries.add(new Query(row[0], row[1].trim()));
        }
        return slice(queries, seed, offset, limit);
    }

    /** Rows after the header, each with at least {@code columns} columns; blank lines are skipped. */
    private static List<String[]> rows(Path file, int columns) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            throw new IllegalArgumentException(file + " is empty: it needs a header line");
        }
        List<String[]> rows = new ArrayList<>(lines.size() - 1);
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            String[] row = line.split("\t", -1);
            if (row.length < columns) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + " has " + row.length
                        + " columns, expected " + columns);
            }
            rows.add(row);
        }
        return rows;
    }

    /** Shuffles with the seed unless it is 0, then takes {@code limit} rows from {@code offset}. */
    static <T> List<T> slice(List<T> rows, long seed, int offset, int limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException("offset and limit must not be negative: " + offset + ", " + limit);
        }
        List<T> ordered = new ArrayList<>(rows);
        if (seed != 0) {
            Collections.shuffle(ordered, new Random(seed));
        }
        int from = Math.min(offset, ordered.size());
        int to = (int) Math.min((long) from + limit, ordered.size());
        return List.copyOf(ordered.subList(from, to));
    }
}
