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

#endif
