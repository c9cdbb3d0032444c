// Shared inside the C target: reading the kernel's software stamp out of a message's control data.
#ifndef C_BENCH_STAMPS_H
#define C_BENCH_STAMPS_H

#include <stdint.h>
#include <sys/socket.h>

/// The software stamp (CLOCK_REALTIME ns) of an SCM_TIMESTAMPING control message in `message`, or 0.
int64_t CBench_softwareStamp(struct msghdr *message);

#endif
