// The few Linux declarations Swift's Glibc module does not export, and small wrappers for the macros,
// GNU extensions and variadic functions Swift cannot call. Nothing else belongs here.
#ifndef C_BENCH_LINUX_H
#define C_BENCH_LINUX_H

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

// epoll event bits as plain integers (sys/epoll.h declares them as an enum).
static const uint32_t CBenchEPOLLIN = EPOLLIN;
static const uint32_t CBenchEPOLLOUT = EPOLLOUT;
static const uint32_t CBenchEPOLLERR = EPOLLERR;
static const uint32_t CBenchEPOLLHUP = EPOLLHUP;

static const int CBenchSOCK_NONBLOCK = SOCK_NONBLOCK;
static const int CBenchSOCK_CLOEXEC = SOCK_CLOEXEC;
static const int CBenchTCP_NODELAY = TCP_NODELAY;
static const int CBenchMSG_NOSIGNAL = MSG_NOSIGNAL;

/// accept4(2) without the peer address. Returns the descriptor, or -1 with errno set.
int CBench_accept4(int fd, int flags);

/// Pins the calling thread to one CPU, of any number. Returns 0 or an errno value.
int CBench_pinCurrentThread(int cpu);

/// Fills `words` (`wordCount` 64-bit words: CPU n is bit n % 64 of word n / 64) with the calling thread's allowed
/// CPUs, however many the kernel has. Returns 0 or an errno value.
int CBench_allowedCPUs(uint64_t *words, int wordCount);

/// The CPU the calling thread runs on now (vDSO, a few nanoseconds), or -1.
int CBench_currentCPU(void);

/// Renames `from` to `to` unless `to` exists (renameat2 with RENAME_NOREPLACE). Returns 0 or an errno value.
int CBench_renameNoReplace(const char *from, const char *to);

/// Names the calling thread (at most 15 bytes are kept), as top -H and gdb show it.
void CBench_setThreadName(const char *name);

/// Sets the calling thread's timer slack (prctl is variadic). Returns 0 or an errno value.
int CBench_setTimerSlack(unsigned long nanoseconds);

/// Turns on the kernel's software timestamps for a socket: a receive stamp with every recvmsg and, with `transmit`,
/// keys for the transmit stamps that CBench_sendPair asks for: the offset of the send's last byte (OPT_ID),
/// delivered on the error queue without the data (OPT_TSONLY). Returns 0 or an errno value.
int CBench_enableKernelTimestamps(int fd, int transmit);

/// sendmsg(2) of `head` then `body` in one call (a WebSocket frame header before its payload; `headLength` 0: the
/// body alone) with MSG_NOSIGNAL; with `stamped`, asking the kernel for a software transmit stamp of this call alone
/// (a SO_TIMESTAMPING control message). Returns the bytes taken, or -1 with errno set.
long CBench_sendPair(int fd, const void *head, unsigned long headLength, const void *body, unsigned long bodyLength,
                     int stamped);

/// recvmsg into `buffer`, with `control` (at least 128 bytes) for the kernel's receive stamp. Returns the byte count,
/// or -1 with errno set; `*stamp` is the software receive stamp in CLOCK_REALTIME nanoseconds, 0 when there is none.
long CBench_receiveStamped(int fd, void *buffer, unsigned long length, void *control, unsigned long controlLength,
                           int64_t *stamp);

/// Takes one transmit stamp off the error queue without waiting. Returns 1 with `*key` (the offset of the last byte
/// of the send it stamps, counted from when stamping was turned on) and `*stamp` (CLOCK_REALTIME ns); returns 0 for
/// something on the queue that is not a transmit stamp; -1 with errno set (EAGAIN: the queue is empty).
int CBench_readTransmitStamp(int fd, void *control, unsigned long controlLength, uint32_t *key, int64_t *stamp);

#endif
