/**
 * The {@code cachegate} command line (picocli): serve, demo, simulate-backend, bench (and the
 * gateway-overhead scenario), validate. It depends on every module and builds the runnable jar.
 */
package io.cachegate.cli;
