/**
 * The {@code cachegate} command line (picocli): serve, demo, simulate-backend, validate, eval-semantic,
 * fit-decision, and bench (registered from the benchmarks module, whose scenarios start their children
 * through this jar's main class). It depends on every module and builds the runnable jar.
 */
package io.cachegate.cli;
