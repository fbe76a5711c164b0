package io.cachegate.config;

/**
 * What one model's tokens cost, per million, in whatever currency the policy's prices are written in.
 *
 * @param model the model name or glob it applies to
 */
public record ModelPrice(String model, double inputPerMillion, double outputPerMillion) {

    /** The cost of these tokens at this price. */
    public double cost(long promptTokens, long completionTokens) {
        return (promptTokens * inputPerMillion + completionTokens * outputPerMillion) / 1_000_000.0;
    }

    /** True when {@code name} is this price's model, or matches its glob. */
    public boolean matches(String name) {
        return Globs.matches(model, name);
    }
}
