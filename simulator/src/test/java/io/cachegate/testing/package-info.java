/**
 * Test support shared by the Netty modules through the simulator's test jar: the leak check that
 * turns a paranoid leak report into a failed test.
 */
package io.cachegate.testing;
