// The io_uring ring of one event loop: setup, the mapped queues, provided buffers, and the few operations the
// harness submits (multishot receive, send, poll, cancel). See CBenchUring.h.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <linux/net_tstamp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "CBenchUring.h"
#include "CBenchStamps.h"

enum { bufferGroup = 0, controlSpace = 64 };

/// What a ring was set up with (its `setup` bits).
enum {
    /// IORING_SETUP_SINGLE_ISSUER and IORING_SETUP_DEFER_TASKRUN (6.1+): completions run when this thread waits.
    CBenchUringDeferredTaskRun = 1,
    /// Receives carry the kernel's software receive stamp (multishot recvmsg with a control buffer).
    CBenchUringReceiveStamps = 2,
};

struct CBenchUring {
    int fd, setup;
    unsigned *sqHead, *sqTail, *sqMask, *sqArray, sqEntries, sqLocalTail;
    unsigned *cqHead, *cqTail, *cqMask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    void *sqMap, *cqMap;
    size_t sqMapLength, cqMapLength, sqesLength;
    struct io_uring_buf_ring *buffers;
    size_t buffersLength;
    unsigned bufferCount, bufferSize, bufferRingEntries;
    char *bufferMemory;
    struct msghdr message;  // the template of a stamped multishot recvmsg: no name, room for one control message
};

static int setupRing(unsigned entries, struct io_uring_params *params) {
    return (int)syscall(__NR_io_uring_setup, entries, params);
}

static int mapQueues(CBenchUring *ring, struct io_uring_params *params) {
    ring->sqMapLength = params->sq_off.array + params->sq_entries * sizeof(unsigned);
    ring->cqMapLength = params->cq_off.cqes + params->cq_entries * sizeof(struct io_uring_cqe);
    ring->sqMap = mmap(NULL, ring->sqMapLength, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring->fd,
                       IORING_OFF_SQ_RING);
    if (ring->sqMap == MAP_FAILED) return errno;
    ring->cqMap = mmap(NULL, ring->cqMapLength, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring->fd,
                       IORING_OFF_CQ_RING);
    if (ring->cqMap == MAP_FAILED) return errno;
    ring->sqesLength = params->sq_entries * sizeof(struct io_uring_sqe);
    ring->sqes = mmap(NULL, ring->sqesLength, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring->fd,
                      IORING_OFF_SQES);
    if (ring->sqes == MAP_FAILED) return errno;
    char *sq = ring->sqMap, *cq = ring->cqMap;
    ring->sqHead = (unsigned *)(sq + params->sq_off.head);
    ring->sqTail = (unsigned *)(sq + params->sq_off.tail);
    ring->sqMask = (unsigned *)(sq + params->sq_off.ring_mask);
    ring->sqArray = (unsigned *)(sq + params->sq_off.array);
    ring->sqEntries = params->sq_entries;
    ring->sqLocalTail = *ring->sqTail;
    ring->cqHead = (unsigned *)(cq + params->cq_off.head);
    ring->cqTail = (unsigned *)(cq + params->cq_off.tail);
    ring->cqMask = (unsigned *)(cq + params->cq_off.ring_mask);
    ring->cqes = (struct io_uring_cqe *)(cq + params->cq_off.cqes);
    return 0;
}

// `count` buffers of `size` bytes, in a buffer ring of the least power of two entries that holds them all (the kernel
// asks for a power of two; the buffers need not fill it).
static int provideBuffers(CBenchUring *ring, unsigned count, unsigned size) {
    unsigned entries = 1;
    while (entries < count) entries <<= 1;
    ring->bufferCount = count;
    ring->bufferSize = size;
    ring->bufferRingEntries = entries;
    ring->buffersLength = entries * sizeof(struct io_uring_buf);
    ring->buffers = mmap(NULL, ring->buffersLength, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (ring->buffers == MAP_FAILED) {
        ring->buffers = NULL;
        return errno;
    }
    ring->bufferMemory = malloc((size_t)count * size);
    if (ring->bufferMemory == NULL) return ENOMEM;
    struct io_uring_buf_reg registration = {
        .ring_addr = (uint64_t)(uintptr_t)ring->buffers, .ring_entries = entries, .bgid = bufferGroup};
    if (syscall(__NR_io_uring_register, ring->fd, IORING_REGISTER_PBUF_RING, &registration, 1) < 0) return errno;
    for (unsigned id = 0; id < count; id++) {
        struct io_uring_buf *buffer = &ring->buffers->bufs[id];
        buffer->addr = (uint64_t)(uintptr_t)(ring->bufferMemory + (size_t)id * size);
        buffer->len = size;
        buffer->bid = (uint16_t)id;
    }
    atomic_store_explicit((_Atomic uint16_t *)&ring->buffers->tail, (uint16_t)count, memory_order_release);
    return 0;
}

CBenchUring *CBench_uringCreate(unsigned entries, unsigned completions, unsigned bufferCount, unsigned bufferSize,
                                int stamps, int *error, const char **step) {
    CBenchUring *ring = calloc(1, sizeof *ring);
    if (ring == NULL) {
        *error = ENOMEM;
        *step = "calloc";
        return NULL;
    }
    ring->fd = -1;
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    params.cq_entries = completions;
    ring->fd = setupRing(entries, &params);
    if (ring->fd < 0 && errno == EINVAL) {  // before 6.1: no single issuer, no deferred task work
        memset(&params, 0, sizeof params);
        params.flags = IORING_SETUP_CQSIZE;
        params.cq_entries = completions;
        ring->fd = setupRing(entries, &params);
    } else if (ring->fd >= 0) {
        ring->setup |= CBenchUringDeferredTaskRun;
    }
    int status = 0;
    if (ring->fd < 0) {
        status = errno;
        *step = "io_uring_setup";
    } else if (!(params.features & IORING_FEAT_NODROP) || !(params.features & IORING_FEAT_EXT_ARG)) {
        status = EINVAL;  // 5.11+: completions are never dropped, and a wait can have a timeout
        *step = "io_uring_setup (the kernel is older than 5.11)";
    } else if ((status = mapQueues(ring, &params)) != 0) {
        *step = "mmap of the io_uring queues";
    } else if (bufferCount > 0 && (status = provideBuffers(ring, bufferCount, bufferSize)) != 0) {
        *step = "io_uring_register of provided buffers (5.19+)";
    }
    if (status != 0) {
        *error = status;
        CBench_uringDestroy(ring);
        return NULL;
    }
    if (stamps) {
        ring->setup |= CBenchUringReceiveStamps;
        ring->message.msg_controllen = controlSpace;
    }
    return ring;
}

void CBench_uringDestroy(CBenchUring *ring) {
    if (ring == NULL) return;
    if (ring->sqes != NULL && ring->sqes != MAP_FAILED) munmap(ring->sqes, ring->sqesLength);
    if (ring->cqMap != NULL && ring->cqMap != MAP_FAILED) munmap(ring->cqMap, ring->cqMapLength);
    if (ring->sqMap != NULL && ring->sqMap != MAP_FAILED) munmap(ring->sqMap, ring->sqMapLength);
    if (ring->fd >= 0) close(ring->fd);  // unregisters the buffers; in-flight requests end with the ring
    if (ring->buffers != NULL) munmap(ring->buffers, ring->buffersLength);
    free(ring->bufferMemory);
    free(ring);
}

/// Submissions prepared and not yet handed to the kernel.
static unsigned pendingSubmissions(const CBenchUring *ring) {
    return ring->sqLocalTail - atomic_load_explicit((_Atomic unsigned *)ring->sqHead, memory_order_acquire);
}

static struct io_uring_sqe *nextSubmission(CBenchUring *ring) {
    if (pendingSubmissions(ring) >= ring->sqEntries) return NULL;
    unsigned index = ring->sqLocalTail & *ring->sqMask;
    struct io_uring_sqe *sqe = &ring->sqes[index];
    memset(sqe, 0, sizeof *sqe);
    ring->sqArray[index] = index;
    ring->sqLocalTail++;
    return sqe;
}

int CBench_uringReceive(CBenchUring *ring, int fd, uint64_t userData) {
    struct io_uring_sqe *sqe = nextSubmission(ring);
    if (sqe == NULL) return -1;
    if (ring->setup & CBenchUringReceiveStamps) {
        sqe->opcode = IORING_OP_RECVMSG;
        sqe->addr = (uint64_t)(uintptr_t)&ring->message;
        sqe->len = 1;
    } else {
        sqe->opcode = IORING_OP_RECV;
    }
    sqe->fd = fd;
    sqe->ioprio = IORING_RECV_MULTISHOT;
    sqe->flags = IOSQE_BUFFER_SELECT;
    sqe->buf_group = bufferGroup;
    sqe->user_data = userData;
    return 0;
}

int CBench_uringSend(CBenchUring *ring, int fd, const void *bytes, unsigned length, uint64_t userData) {
    struct io_uring_sqe *sqe = nextSubmission(ring);
    if (sqe == NULL) return -1;
    sqe->opcode = IORING_OP_SEND;
    sqe->fd = fd;
    sqe->addr = (uint64_t)(uintptr_t)bytes;
    sqe->len = length;
    sqe->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
    sqe->user_data = userData;
    return 0;
}

int CBench_uringPoll(CBenchUring *ring, int fd, uint32_t events, uint64_t userData) {
    struct io_uring_sqe *sqe = nextSubmission(ring);
    if (sqe == NULL) return -1;
    sqe->opcode = IORING_OP_POLL_ADD;
    sqe->fd = fd;
    sqe->poll32_events = events;
    sqe->user_data = userData;
    return 0;
}

int CBench_uringCancel(CBenchUring *ring, uint64_t target, uint64_t userData) {
    struct io_uring_sqe *sqe = nextSubmission(ring);
    if (sqe == NULL) return -1;
    sqe->opcode = IORING_OP_ASYNC_CANCEL;
    sqe->fd = -1;
    sqe->addr = target;
    sqe->cancel_flags = IORING_ASYNC_CANCEL_ALL;
    sqe->user_data = userData;
    return 0;
}

int CBench_uringEnter(CBenchUring *ring, int wait, int64_t timeoutNanoseconds) {
    unsigned submit = pendingSubmissions(ring);
    atomic_store_explicit((_Atomic unsigned *)ring->sqTail, ring->sqLocalTail, memory_order_release);
    struct __kernel_timespec timeout = {
        .tv_sec = timeoutNanoseconds / 1000000000, .tv_nsec = timeoutNanoseconds % 1000000000};
    struct io_uring_getevents_arg argument = {.ts = timeoutNanoseconds >= 0 ? (uint64_t)(uintptr_t)&timeout : 0};
    unsigned flags = IORING_ENTER_EXT_ARG | (wait ? IORING_ENTER_GETEVENTS : 0);
    // Deferred task work runs only in a wait: without one, completions of inline sends are still posted.
    if (!wait && (ring->setup & CBenchUringDeferredTaskRun)) flags |= IORING_ENTER_GETEVENTS;
    long result = syscall(__NR_io_uring_enter, ring->fd, submit, wait ? 1 : 0, flags, &argument, sizeof argument);
    if (result >= 0) return 0;
    if (errno == EINTR || errno == ETIME || errno == EBUSY || errno == EAGAIN) return 0;
    return -errno;
}

int CBench_uringNextCompletion(CBenchUring *ring, CBenchCompletion *completion) {
    unsigned head = *ring->cqHead;
    if (head == atomic_load_explicit((_Atomic unsigned *)ring->cqTail, memory_order_acquire)) return 0;
    const struct io_uring_cqe *cqe = &ring->cqes[head & *ring->cqMask];
    completion->userData = cqe->user_data;
    completion->result = cqe->res;
    completion->flags = cqe->flags;
    atomic_store_explicit((_Atomic unsigned *)ring->cqHead, head + 1, memory_order_release);
    return 1;
}

void *CBench_uringReceived(CBenchUring *ring, const CBenchCompletion *completion, unsigned *count, int64_t *stamp,
                           uint16_t *bufferID) {
    *stamp = 0;
    if (!(completion->flags & IORING_CQE_F_BUFFER)) return NULL;
    uint16_t id = (uint16_t)(completion->flags >> IORING_CQE_BUFFER_SHIFT);
    *bufferID = id;
    char *buffer = ring->bufferMemory + (size_t)id * ring->bufferSize;
    if (!(ring->setup & CBenchUringReceiveStamps)) {
        *count = completion->result > 0 ? (unsigned)completion->result : 0;
        return buffer;
    }
    // recvmsg's layout: its header, the name (none), the control messages' room, then the payload.
    const struct io_uring_recvmsg_out *out = (const struct io_uring_recvmsg_out *)buffer;
    size_t payloadStart = sizeof *out + ring->message.msg_namelen + ring->message.msg_controllen;
    if (completion->result < (int)payloadStart) {
        *count = 0;
        return buffer;
    }
    struct msghdr control = {
        .msg_control = buffer + sizeof *out + ring->message.msg_namelen, .msg_controllen = out->controllen};
    *stamp = out->payloadlen > 0 ? CBench_softwareStamp(&control) : 0;
    *count = out->payloadlen;
    return buffer + payloadStart;
}

void CBench_uringRecycle(CBenchUring *ring, uint16_t bufferID) {
    struct io_uring_buf_ring *buffers = ring->buffers;
    uint16_t tail = buffers->tail;
    struct io_uring_buf *buffer = &buffers->bufs[tail & (ring->bufferRingEntries - 1)];
    buffer->addr = (uint64_t)(uintptr_t)(ring->bufferMemory + (size_t)bufferID * ring->bufferSize);
    buffer->len = ring->bufferSize;
    buffer->bid = bufferID;
    atomic_store_explicit((_Atomic uint16_t *)&buffers->tail, (uint16_t)(tail + 1), memory_order_release);
}

int CBench_uringHasMore(const CBenchCompletion *completion) { return (completion->flags & IORING_CQE_F_MORE) != 0; }
