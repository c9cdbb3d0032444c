#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "CBenchLinux.h"

int CBench_accept4(int fd, int flags) {
    return accept4(fd, NULL, NULL, flags);
}

int CBench_pinCurrentThread(int cpu) {
    if (cpu < 0) return EINVAL;
    cpu_set_t *set = CPU_ALLOC(cpu + 1);
    if (set == NULL) return ENOMEM;
    size_t size = CPU_ALLOC_SIZE(cpu + 1);
    CPU_ZERO_S(size, set);
    CPU_SET_S(cpu, size, set);
    int status = sched_setaffinity(0, size, set) == 0 ? 0 : errno;
    CPU_FREE(set);
    return status;
}

int CBench_allowedCPUs(uint64_t *words, int wordCount) {
    // The kernel refuses (EINVAL) a set smaller than its own CPU count: grow until it fits.
    for (int cpus = 1024; cpus <= wordCount * 64; cpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(cpus);
        if (set == NULL) return ENOMEM;
        size_t size = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) != 0) {
            int error = errno;
            CPU_FREE(set);
            if (error == EINVAL) continue;
            return error;
        }
        for (int word = 0; word < wordCount; word++) words[word] = 0;
        for (int cpu = 0; cpu < cpus; cpu++) {
            if (CPU_ISSET_S(cpu, size, set)) words[cpu / 64] |= (uint64_t)1 << (cpu % 64);
        }
        CPU_FREE(set);
        return 0;
    }
    return EINVAL;
}

int CBench_currentCPU(void) {
    return sched_getcpu();
}

int CBench_setTimerSlack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0) == 0 ? 0 : errno;
}

void CBench_setThreadName(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}

int CBench_renameNoReplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0 ? 0 : errno;
}
