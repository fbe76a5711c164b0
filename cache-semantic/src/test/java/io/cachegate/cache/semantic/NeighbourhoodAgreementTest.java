package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NeighbourhoodAgreementTest {

    private final AnswerGroups groups = new AnswerGroups(100);
    private final NeighbourhoodAgreement agreement = new NeighbourhoodAgreement(groups);

    private static Neighbour n(String key, double similarity) {
        return new Neighbour(key, (float) similarity, "text of " + key, 0, Long.MAX_VALUE);
    }

    @Test
    void aLoneAnswer_orAnUnknownOne_hasNoAgreement() {
        groups.file("a", "yes");
        groups.file("b", "no");
        List<Neighbour> neighbours = List.of(n("a", 0.95), n("b", 0.94), n("c", 0.93));

        assertThat(agreement.probability(neighbours.get(0), neighbours)).isNaN();
        assertThat(agreement.probability(neighbours.get(2), neighbours)).as("c was never filed").isNaN();
    }

    @Test
    void moreNeighboursSharingTheAnswer_andAWiderMargin_raiseTheProbability() {
        for (String key : List.of("a1", "a2", "a3", "a4")) {
            groups.file(key, "Use the Forgot password link.");
        }
        groups.file("b1", "Under Settings.");
        List<Neighbour> two = List.of(n("a1", 0.93), n("b1", 0.925), n("a2", 0.92));
        List<Neighbour> four = List.of(n("a1", 0.93), n("a2", 0.925), n("a3", 0.92), n("a4", 0.91), n("b1", 0.70));

        double contested = agreement.probability(two.get(0), two);
        double clear = agreement.probability(four.get(0), four);

        assertThat(contested).isBetween(0.0, 0.9);
        assertThat(clear).isGreaterThan(0.99);
        assertThat(agreement.probability(four.get(3), four)).as("every member sees its group's figures")
                .isEqualTo(clear);
    }

    @Test
    void answersAreComparedAfterCollapsingWhiteSpace_andAJoinSharesAGroup() {
        groups.file("a", " Use the\n link. ");
        groups.file("b", "Use the link.");
        groups.file("c", "Click it.");
        assertThat(groups.group("a")).isEqualTo(groups.group("b")).isNotEqualTo(AnswerGroups.UNKNOWN);
        assertThat(groups.group("c")).isNotEqualTo(groups.group("a"));

        groups.join("c", "a");

        assertThat(groups.group("c")).isEqualTo(groups.group("a"));
        assertThat(groups.group("missing")).isEqualTo(AnswerGroups.UNKNOWN);
    }

    @Test
    void anEmptyAnswerIsNotFiled_andTheGroupsAreBounded() {
        AnswerGroups small = new AnswerGroups(2);
        small.file("empty", "  ");
        small.file("a", "x");
        small.file("b", "y");
        small.file("c", "z");

        assertThat(small.group("empty")).isEqualTo(AnswerGroups.UNKNOWN);
        assertThat(small.size()).isEqualTo(2);
        assertThat(small.group("a")).as("the least recently used is forgotten").isEqualTo(AnswerGroups.UNKNOWN);
    }
}
