// The kernel's io_uring interface, spoken directly (io_uring_setup, io_uring_enter and io_uring_register through
// syscall(2), the rings mapped with mmap): one ring per event loop, for one thread. No liburing.
#ifndef C_BENCH_URING_H
#define C_BENCH_URING_H

#include <stdint.h>

/// One ring, its mapped queues, and its provided buffers (the buffers multishot receives fill).
typedef struct CBenchUring CBenchUring;

/// One completion, copied out of the completion queue.
typedef struct {
    uint64_t userData;
    int32_t result;
    uint32_t flags;
} CBenchCompletion;

/// Sets up a ring of `entries` submissions and `completions` completions, with `bufferCount` (a power of two)
/// provided buffers of `bufferSize` bytes for multishot receives, which carry kernel receive stamps when `stamps`.
/// Asks for SINGLE_ISSUER and DEFER_TASKRUN and goes on without them where the kernel refuses them. Returns NULL
/// with `*error` set to the errno of the step that failed (EPERM where io_uring is disabled or filtered, ENOSYS where
/// it does not exist, EINVAL where a feature is missing) and `*step` to its name.
CBenchUring *CBench_uringCreate(unsigned entries, unsigned completions, unsigned bufferCount, unsigned bufferSize,
                                int stamps, int *error, const char **step);

/// Unmaps and closes everything the ring holds.
void CBench_uringDestroy(CBenchUring *ring);

/// Prepares a multishot receive on `fd` into the provided buffers (recvmsg with a control buffer when the ring
/// takes stamps). Returns 0, or -1 when the submission queue is full.
int CBench_uringReceive(CBenchUring *ring, int fd, uint64_t userData);

/// Prepares a send of `length` bytes at `bytes` on `fd` that never waits (MSG_DONTWAIT: it completes in the
/// io_uring_enter that submits it, with what the socket took or -EAGAIN) and raises no SIGPIPE. The bytes must stay
/// until then. Returns 0, or -1 when the submission queue is full.
int CBench_uringSend(CBenchUring *ring, int fd, const void *bytes, unsigned length, uint64_t userData);

/// Prepares a one-shot poll of `fd` for `events` (POLLIN …). Returns 0, or -1 when the submission queue is full.
int CBench_uringPoll(CBenchUring *ring, int fd, uint32_t events, uint64_t userData);

/// Prepares the cancellation of every request whose user data is `target`; its own completion carries
/// `userData`. Returns 0, or -1 when the submission queue is full.
int CBench_uringCancel(CBenchUring *ring, uint64_t target, uint64_t userData);

/// Submits what is prepared and, with `wait`, waits until a completion is there or `timeoutNanoseconds` pass
/// (negative: no limit). Returns 0 (also when interrupted or timed out) or a negative errno.
int CBench_uringEnter(CBenchUring *ring, int wait, int64_t timeoutNanoseconds);

/// Takes the oldest completion off the queue into `completion`. Returns 1, or 0 when there is none.
int CBench_uringNextCompletion(CBenchUring *ring, CBenchCompletion *completion);

/// The provided buffer a receive's completion names (from its flags) and, in `*count`, where its received bytes
/// begin and how many they are; `*stamp` is the kernel's receive stamp (CLOCK_REALTIME ns, 0 when none). NULL when
/// the completion carries no buffer.
void *CBench_uringReceived(CBenchUring *ring, const CBenchCompletion *completion, unsigned *count, int64_t *stamp,
                           uint16_t *bufferID);

/// Gives a provided buffer back to the kernel once its bytes are used.
void CBench_uringRecycle(CBenchUring *ring, uint16_t bufferID);

/// True when a multishot request's completion says more will follow (IORING_CQE_F_MORE).
int CBench_uringHasMore(const CBenchCompletion *completion);

#endif
