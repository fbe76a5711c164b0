package io.cachegate.simulator;

import java.util.SplittableRandom;

/**
 * Deterministic output text: each choice is a run of plain English words drawn with a
 * {@link SplittableRandom} seeded from the request hash and the choice index. A token is one word
 * with its leading space, so the concatenated stream deltas equal the non-streamed content.
 */
final class CompletionGenerator {

    private static final String[] VOCABULARY = (
            "the of and to in is that it was for on are as with his they at be this from have or by one had "
            + "not but what all were when we there can an your which their said if do will each about how up "
            + "out them then she many some so these would other into has more her two like him see time could "
            + "no make than first been its who now people my made over did down only way find use may water "
            + "long little very after words called just where most know get through back much before go good "
            + "new write our used me man too any day same right look think also around another came come work "
            + "three word must because does part even place well such here take why things help put years "
            + "different away again off went old number great tell men say small every found still between "
            + "name should home big give air line set own under read last never us left end along while might "
            + "next sound below saw something thought both few those always looked show large often together "
            + "asked house world going want school important until form food keep children feet land side "
            + "without boy once animals life enough took sometimes four head above kind began almost live page "
            + "got earth need far hand high year mother light parts country father let night following picture "
            + "being study second eyes soon times story boys since white days ever paper hard near sentence "
            + "better best across during today others sure means knew try told young miles sun ways thing whole "
            + "hear example heard several change answer room sea against top turned learn point city play toward "
            + "five using himself usually river").split(" ");

    private CompletionGenerator() {
    }

    /** The tokens of choice {@code choiceIndex}, each a word with its leading space. */
    static String[] tokens(long seed, int choiceIndex, int count) {
        // Golden-ratio increment: distinct, well-spread seeds per choice.
        SplittableRandom random = new SplittableRandom(seed + 0x9E3779B97F4A7C15L * choiceIndex);
        String[] tokens = new String[count];
        for (int i = 0; i < count; i++) {
            tokens[i] = ' ' + VOCABULARY[random.nextInt(VOCABULARY.length)];
        }
        return tokens;
    }
}
