/**
 * Test support shared through the simulator's test jar (the simulator depends on nothing of ours,
 * so every module may use it): the leak check that turns a paranoid Netty leak report into a
 * failed test, and the Redis server the integration tests find or start.
 */
package io.cachegate.testing;
