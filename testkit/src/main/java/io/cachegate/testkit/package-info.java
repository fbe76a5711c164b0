/**
 * Test helpers more than one module needs, kept in one place instead of a copy per module. Modules
 * depend on it with {@code test} scope only; it depends on {@code config} and nothing else.
 */
package io.cachegate.testkit;
