/* An echo server of known rate, for Benchmarks/known-capacity.sh: newline-framed, one client at a time, and each line
 * costs it WORK_US microseconds of CPU (a busy loop) before it is written back. It answers at most 1e6 / WORK_US lines a
 * second: `bench capacity roundtrip` should find an interval a little above WORK_US (its reads and writes cost too).
 * Usage: slow_echo_server PORT WORK_US */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    long long work = atoll(argv[2]) * 1000;
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 16)) return perror("bind"), 1;
    static char buffer[1 << 20];
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0) continue;
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        size_t held = 0;
        ssize_t count;
        while ((count = read(client, buffer + held, sizeof buffer - held)) > 0) {
            held += (size_t)count;
            char *start = buffer, *end;
            while ((end = memchr(start, '\n', held - (size_t)(start - buffer)))) {
                for (long long until = now_ns() + work; now_ns() < until;) {}
                size_t length = (size_t)(end - start) + 1;
                for (size_t sent = 0; sent < length;) {
                    ssize_t n = write(client, start + sent, length - sent);
                    if (n <= 0) goto closed;
                    sent += (size_t)n;
                }
                start = end + 1;
            }
            held -= (size_t)(start - buffer);
            memmove(buffer, start, held);
            if (held == sizeof buffer) break;
        }
    closed:
        close(client);
    }
}
