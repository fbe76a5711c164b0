package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cli.CliTest.Run;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** train-aot without an AOT flag: the training workload runs through both gateways and says it wrote nothing. */
class TrainAotCommandTest {

    @Test
    void withoutTheOutputFlag_theWorkloadRunsWithoutErrors_andNoCacheIsPromised() {
        Run run = CliTest.run("train-aot", "--duration", "1500ms", "--connections", "4");

        assertThat(run.exit()).as(run.out()).isZero();
        assertThat(run.out()).contains("no -XX:AOTCacheOutput given");
        Matcher m = Pattern.compile("train-aot: (\\d+) requests, (\\d+) errors").matcher(run.out());
        assertThat(m.find()).as(run.out()).isTrue();
        // That the workload ran, not how fast: a loaded machine (load 8-10) served 51-72 in this second and a half.
        assertThat(Long.parseLong(m.group(1))).as("requests").isGreaterThanOrEqualTo(20);
        assertThat(m.group(2)).as("errors").isEqualTo("0");
    }

    @Test
    void aDurationThatIsNotOne_isAUsageError() {
        assertThat(CliTest.run("train-aot", "--duration", "soon").exit()).isEqualTo(2);
    }
}
