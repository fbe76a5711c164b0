package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's and docs/architecture.md's stage tables name every stage {@link RequestPath} assembles, in its order. */
class ArchitectureDocsTest {

    private static final Pattern ADDED = Pattern.compile("stages\\.add\\(new (\\w+Stage)\\(");
    private static final Pattern NAMED = Pattern.compile("`(\\w+Stage)`");

    @Test
    void readme_listsEveryStage_inTheOrderOfTheRequestPath() throws IOException {
        assertThat(named(section(Path.of("../README.md"), "## Architecture"))).containsExactlyElementsOf(assembled());
    }

    @Test
    void architectureDoc_listsEveryStage_inTheOrderOfTheRequestPath() throws IOException {
        assertThat(named(section(Path.of("../docs/architecture.md"), "| stage"))).containsExactlyElementsOf(assembled());
    }

    private static List<String> assembled() throws IOException {
        String source = Files.readString(Path.of("src/main/java/io/cachegate/gateway/RequestPath.java"));
        List<String> stages = matches(ADDED, source);
        assertThat(stages).as("RequestPath still adds its stages as stages.add(new XStage(...))").hasSizeGreaterThan(10);
        return stages;
    }

    /** The text from {@code start} to the next heading. */
    private static String section(Path file, String start) throws IOException {
        String text = Files.readString(file);
        int from = text.indexOf(start);
        assertThat(from).as("%s has %s", file, start).isNotNegative();
        int to = text.indexOf("\n#", from + start.length());
        return text.substring(from, to < 0 ? text.length() : to);
    }

    /** The stage classes a table names, the first time each is named. */
    private static List<String> named(String text) {
        return matches(NAMED, text).stream().distinct().toList();
    }

    private static List<String> matches(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
