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

#include "CBenchUring.h"

// epoll event bits as plain integers (sys/epoll.h declares them as an enum).
static const uint32_t CBenchEPOLLIN = EPOLLIN;
static const uint32_t CBenchEPOLLOUT = EPOLLOUT;
static const uint32_t CBenchEPOLLERR = EPOLLERR;
static const uint32_t CBenchEPOLLHUP = EPOLLHUP;
static const uint32_t CBenchEPOLLONESHOT = EPOLLONESHOT;

static const int CBenchSOCK_NONBLOCK = SOCK_NONBLOCK;
static const int CBenchSOCK_CLOEXEC = SOCK_CLOEXEC;
static const int CBenchSOCK_DGRAM = SOCK_DGRAM;
static const int CBenchSOCK_STREAM = SOCK_STREAM;
static const int CBenchTCP_NODELAY = TCP_NODELAY;
static const int CBenchMSG_NOSIGNAL = MSG_NOSIGNAL;
static const int CBenchMSG_DONTWAIT = MSG_DONTWAIT;

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

/// How child `pid` ended, without reaping it (waitid with WNOWAIT): its exit code, 128 + the signal that ended it,
/// or -1 while it runs (or is no child).
int CBench_peekExitStatus(int pid);

/// Asks the kernel to send this process `signal` when its parent goes (prctl is variadic). Returns 0 or an errno value.
int CBench_setParentDeathSignal(int signal);

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

// TLS through the system's OpenSSL 3 (CBenchTLS.c), loaded at run time. Certificates, keys, contexts and sessions
// are opaque pointers; `error` receives a message of at most `size` bytes where a call can fail.

/// Loads libssl.so.3 and libcrypto.so.3 once. Returns 0, or -1 with dlerror's message.
int CBenchTLS_load(char *error, size_t size);
/// The first certificate or private key of PEM text, or NULL.
void *CBenchTLS_readCertificate(const char *pem, int length, char *error, size_t size);
void *CBenchTLS_readPrivateKey(const char *pem, int length, char *error, size_t size);
/// A fresh P-256 key and a self-signed certificate for it (CN `commonName`, valid a week). Returns 0 or -1.
int CBenchTLS_makeSelfSigned(const char *commonName, void **certificate, void **key, char *error, size_t size);
/// The SHA-256 of a certificate's DER encoding. Returns 0 or -1.
int CBenchTLS_fingerprint(const void *certificate, unsigned char digest[32]);
/// Writes the certificate as PEM into `buffer` if it fits; returns its length, or -1.
long CBenchTLS_certificatePEM(void *certificate, char *buffer, size_t size);
void CBenchTLS_freeCertificate(void *certificate);
void CBenchTLS_freePrivateKey(void *key);
/// A TLS 1.2+ context: a server's with its certificate and key, or a client's (which checks no chain: it pins).
void *CBenchTLS_newContext(int server, void *certificate, void *key, char *error, size_t size);
void CBenchTLS_freeContext(void *context);
/// A session reading from and writing to memory: the caller moves the bytes to and from the socket.
void *CBenchTLS_newSession(void *context, int server);
void CBenchTLS_freeSession(void *session);
/// A client's server name (SNI), for servers that choose their certificate by it. Returns 0 or -1.
int CBenchTLS_setServerName(void *session, const char *name);
/// A client's ALPN offer (RFC 7301): `protocols` in the wire form, each name after its length byte. Returns 0 or -1.
int CBenchTLS_setALPN(void *session, const unsigned char *protocols, int length);
/// The protocol the server chose by ALPN, once the handshake is done, into `name` (NUL-ended); its length, 0 for none.
int CBenchTLS_selectedALPN(void *session, char *name, int size);
/// Gives the session bytes read from the socket. Returns 0 or -1.
int CBenchTLS_feed(void *session, const void *bytes, int length);
/// Advances the handshake: 1 done, 0 needs more input, -1 failed, -2 the peer closed.
int CBenchTLS_handshake(void *session, char *error, size_t size);
/// Decrypts into `buffer`: the byte count, 0 needs more input, -1 failed, -2 the peer closed (close_notify).
long CBenchTLS_read(void *session, void *buffer, int capacity, char *error, size_t size);
/// Encrypts `head` then `body` as one record. Returns the bytes taken (all of them), or -1.
long CBenchTLS_write(void *session, const void *head, int headLength, const void *body, int bodyLength);
/// The encrypted bytes waiting to go to the socket, in place: their length, `*bytes` pointing at them.
long CBenchTLS_output(void *session, const void **bytes);
/// Drops the waiting encrypted bytes (they were written or queued).
void CBenchTLS_clearOutput(void *session);
/// Sends close_notify (into the output).
void CBenchTLS_shutdown(void *session);
/// 1 when the peer's certificate is `certificate`, else 0.
int CBenchTLS_peerIs(void *session, const void *certificate);

/// Clients of `context` verify the server's chain up to one of the certificates of the PEM bundle `pem` (CBenchTLSVerify.c).
/// Returns 0, or -1 with why in `error` (no certificate in it).
int CBenchTLS_trustAuthorities(void *context, const char *pem, int length, char *error, size_t size);

/// Clients of `context` verify the server's chain up to the system's store of authorities. Returns 0, or -1.
int CBenchTLS_trustSystemStore(void *context, char *error, size_t size);

/// The name (a DNS name or an IP address) the server's certificate must carry, when its context verifies. 0 or -1.
int CBenchTLS_expectName(void *session, const char *name);
/// The protocol version agreed, e.g. "TLSv1.3".
const char *CBenchTLS_version(void *session);

#endif
