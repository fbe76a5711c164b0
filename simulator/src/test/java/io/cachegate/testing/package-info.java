/**
 * Test support shared through the simulator's test jar (the simulator depends on nothing of ours,
 * so every module may use it): the leak check that turns a paranoid Netty leak report into a
 * failed test, the Redis server the integration tests find or start, and the local Redis Cluster
 * (three masters, three replicas) and Sentinel set (one master, one replica, three sentinels) of the
 * Cluster and failover tests.
 */
package io.cachegate.testing;
