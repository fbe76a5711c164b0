package io.cachegate.gateway.admin;

import java.util.List;

/**
 * What a policy reload did.
 *
 * @param outcome {@code applied}, {@code unchanged}, {@code rejected} (invalid: the running policy stays),
 *                {@code unavailable} (no policy file: the embedded default has nothing to reload) or
 *                {@code running} (this one, or the one before it, outlasted the wait of an admin call and goes
 *                on; its outcome is logged and counted)
 * @param generation the policy generation serving new requests afterwards
 * @param problems why it was rejected, with file:line:path as {@code validate} prints them
 * @param restartRequired keys that changed but only take effect on a restart; their old values stay
 */
public record ReloadOutcome(String outcome, long generation, List<String> problems, List<String> restartRequired) {
}
