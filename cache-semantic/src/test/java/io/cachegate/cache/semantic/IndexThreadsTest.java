package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IndexThreadsTest {

    private final ExecutorService helpers = IndexThreads.idleHelpers("test-helper", 1);

    @AfterEach
    void stop() {
        helpers.shutdownNow();
    }

    @Test
    void runShared_resultsInTaskOrder_andAnIdleHelperTakesPart() throws Exception {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch bothStarted = new CountDownLatch(2);
        List<Callable<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int n = i;
            tasks.add(() -> {
                threads.add(Thread.currentThread().getName());
                bothStarted.countDown();
                bothStarted.await(5, TimeUnit.SECONDS);  // the caller and the helper each hold a task at once
                return n * n;
            });
        }

        assertThat(IndexThreads.runShared(tasks, helpers)).containsExactly(0, 1, 4, 9, 16, 25, 36, 49);
        assertThat(threads).hasSize(2).anyMatch(name -> name.startsWith("test-helper"));
    }

    @Test
    void runShared_noHelperFree_theCallerRunsEveryTask() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        helpers.execute(() -> {
            try {
                release.await();  // the only helper is busy
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        String caller = Thread.currentThread().getName();
        List<Callable<String>> tasks = List.of(() -> Thread.currentThread().getName(), () -> Thread.currentThread().getName());
        try {
            assertThat(IndexThreads.runShared(tasks, helpers)).containsExactly(caller, caller);
        } finally {
            release.countDown();
        }
        ExecutorService none = IndexThreads.idleHelpers("none", 0);
        assertThat(IndexThreads.runShared(tasks, none)).containsExactly(caller, caller);
    }

    @Test
    void runShared_aTaskFails_itsIoExceptionReachesTheCaller() {
        List<Callable<Integer>> tasks = List.of(() -> 1, () -> {
            throw new IOException("segment unreadable");
        }, () -> 3);

        assertThatThrownBy(() -> IndexThreads.runShared(tasks, helpers))
                .isInstanceOf(IOException.class).hasMessage("segment unreadable");
    }
}
