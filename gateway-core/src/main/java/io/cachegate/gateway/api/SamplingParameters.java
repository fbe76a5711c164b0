package io.cachegate.gateway.api;

import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** The sampling parameters of a generation request as the client sent them (absent means the server default). */
public record SamplingParameters(OptionalDouble temperature, OptionalDouble topP, int n, OptionalInt maxTokens,
                                 OptionalLong seed) {

    public static final SamplingParameters NONE =
            new SamplingParameters(OptionalDouble.empty(), OptionalDouble.empty(), 1, OptionalInt.empty(), OptionalLong.empty());
}
