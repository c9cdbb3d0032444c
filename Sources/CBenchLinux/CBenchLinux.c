#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/socket.h>

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>

#include "CBenchLinux.h"
#include "CBenchStamps.h"

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

int CBench_peekExitStatus(int pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != pid) return -1;
    return info.si_code == CLD_EXITED ? (info.si_status & 0xFF) : 128 + info.si_status;
}

int CBench_setParentDeathSignal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0) == 0 ? 0 : errno;
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

int CBench_enableKernelTimestamps(int fd, int transmit) {
    int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    if (transmit) flags |= SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0 ? 0 : errno;
}

long CBench_sendPair(int fd, const void *head, unsigned long headLength, const void *body, unsigned long bodyLength,
                     int stamped) {
    union {
        char bytes[CMSG_SPACE(sizeof(uint32_t))];
        struct cmsghdr align;
    } control;
    struct iovec vectors[2] = {{.iov_base = (void *)head, .iov_len = headLength},
                               {.iov_base = (void *)body, .iov_len = bodyLength}};
    struct msghdr message = {.msg_iov = headLength ? vectors : vectors + 1, .msg_iovlen = headLength ? 2 : 1};
    if (stamped) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        struct cmsghdr *c = CMSG_FIRSTHDR(&message);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SO_TIMESTAMPING;
        c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
        uint32_t flags = SOF_TIMESTAMPING_TX_SOFTWARE;
        memcpy(CMSG_DATA(c), &flags, sizeof flags);
    }
    return sendmsg(fd, &message, MSG_NOSIGNAL);
}

int64_t CBench_softwareStamp(struct msghdr *message) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(message); c != NULL; c = CMSG_NXTHDR(message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
            struct scm_timestamping stamps;
            memcpy(&stamps, CMSG_DATA(c), sizeof stamps);
            return (int64_t)stamps.ts[0].tv_sec * 1000000000 + stamps.ts[0].tv_nsec;
        }
    }
    return 0;
}

long CBench_receiveStamped(int fd, void *buffer, unsigned long length, void *control, unsigned long controlLength,
                           int64_t *stamp) {
    struct iovec vector = {.iov_base = buffer, .iov_len = length};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control, .msg_controllen = controlLength};
    long count = recvmsg(fd, &message, 0);
    *stamp = count > 0 ? CBench_softwareStamp(&message) : 0;
    return count;
}

int CBench_readTransmitStamp(int fd, void *control, unsigned long controlLength, uint32_t *key, int64_t *stamp) {
    struct msghdr message = {.msg_control = control, .msg_controllen = controlLength};
    if (recvmsg(fd, &message, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return -1;
    const struct sock_extended_err *error = NULL;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
            (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
            error = (const struct sock_extended_err *)CMSG_DATA(c);
        }
    }
    *stamp = CBench_softwareStamp(&message);
    if (error == NULL || error->ee_origin != SO_EE_ORIGIN_TIMESTAMPING || error->ee_info != SCM_TSTAMP_SND || *stamp == 0) {
        return 0;
    }
    *key = error->ee_data;
    return 1;
}
