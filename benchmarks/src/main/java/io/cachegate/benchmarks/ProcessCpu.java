package io.cachegate.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/** This JVM's CPU time, all threads together: what a piece of work cost, whatever else the machine was running. */
final class ProcessCpu {

    private ProcessCpu() {
    }

    /** Nanoseconds of CPU this process has used, or -1 where the JVM does not report it. */
    static long nanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }
}
