/* A relay of known capacity, for Benchmarks/known-capacity.sh: newline-framed; a connection that sends the line "JOIN"
 * is subscribed, and any other line is relayed to every subscriber, the i-th (in the order they joined, from 0) at
 * DELAY_US × i after the line arrived, each write timed to its instant with an absolute clock_nanosleep. A broadcast's
 * spread is therefore (subscribers − 1) × DELAY_US plus one wake-up's lateness (tens of µs), by construction: with
 * DELAY_US 50, `spread.p99<100ms` holds up to 2,000 subscribers and breaks from 2,002 (issue 62's relay). Python's
 * asyncio relay (Tests/Fixtures/slow_relay_server.py) cannot keep that schedule here: its own cost per write moved its
 * limit to about 1,500, and with it the truth a search is checked against.
 *
 * One thread: while a broadcast is written the relay reads nothing else (lines wait in the kernel), so broadcasts less
 * than (subscribers − 1) × DELAY_US apart queue up; their spread stays the same. A write that would block is lost to
 * that subscriber (counted on stderr at exit), as a relay that drops a slow reader's line.
 * Usage: paced_relay_server DELAY_US PORT_FILE (listens on 127.0.0.1, a free port, written to PORT_FILE whole). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_CONNECTIONS = 65536, BUFFER = 64 << 10 };

struct connection {
    char *buffer;
    size_t held;
    int subscribed;
};

static struct connection connections[MAX_CONNECTIONS];
static int subscribers[MAX_CONNECTIONS];
static int subscriber_count;
static long long lost;

static void unsubscribe(int fd) {
    for (int i = 0; i < subscriber_count; i++) {
        if (subscribers[i] == fd) {
            memmove(subscribers + i, subscribers + i + 1, (size_t)(subscriber_count - i - 1) * sizeof(int));
            subscriber_count--;
            return;
        }
    }
}

static void broadcast(const char *line, size_t length, long long delay_ns) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < subscriber_count; i++) {
        long long at = start.tv_nsec + delay_ns * i;
        struct timespec due = {.tv_sec = start.tv_sec + at / 1000000000LL, .tv_nsec = at % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR) {}
        if (send(subscribers[i], line, length, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)length) lost++;
    }
}

static void finish(int signal) {
    (void)signal;
    fprintf(stderr, "paced relay: %lld writes lost\n", lost);
    _exit(0);
}

int main(int argc, char **argv) {
    if (argc != 3) return fprintf(stderr, "usage: paced_relay_server DELAY_US PORT_FILE\n"), 2;
    long long delay_ns = atoll(argv[1]) * 1000;
    signal(SIGTERM, finish);
    signal(SIGINT, finish);
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t size = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 4096) ||
        getsockname(listener, (struct sockaddr *)&address, &size))
        return perror("listen"), 1;
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp", argv[2]);
    FILE *file = fopen(temporary, "w");
    if (!file) return perror(temporary), 1;
    fprintf(file, "%d\n", ntohs(address.sin_port));
    fclose(file);
    if (rename(temporary, argv[2])) return perror(argv[2]), 1;
    int epoll = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event events[256];
    for (;;) {
        int ready = epoll_wait(epoll, events, 256, -1);
        for (int e = 0; e < ready; e++) {
            int fd = events[e].data.fd;
            if (fd == listener) {
                int client = accept(listener, NULL, NULL);
                if (client < 0) continue;
                if (client >= MAX_CONNECTIONS) {
                    close(client);
                    continue;
                }
                setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                connections[client] = (struct connection){.buffer = malloc(BUFFER)};
                struct epoll_event readable = {.events = EPOLLIN, .data.fd = client};
                epoll_ctl(epoll, EPOLL_CTL_ADD, client, &readable);
                continue;
            }
            struct connection *c = &connections[fd];
            ssize_t count = read(fd, c->buffer + c->held, BUFFER - c->held);
            if (count <= 0 || (c->held += (size_t)count) == BUFFER) {
                if (c->subscribed) unsubscribe(fd);
                free(c->buffer);
                *c = (struct connection){0};
                close(fd);  /* closing removes it from epoll */
                continue;
            }
            char *start = c->buffer, *end;
            while ((end = memchr(start, '\n', c->held - (size_t)(start - c->buffer)))) {
                size_t length = (size_t)(end - start) + 1;
                size_t text = length - 1 - (length > 1 && end[-1] == '\r');
                if (text == 4 && memcmp(start, "JOIN", 4) == 0) {
                    if (!c->subscribed) subscribers[subscriber_count++] = fd;
                    c->subscribed = 1;
                } else {
                    broadcast(start, length, delay_ns);
                }
                start = end + 1;
            }
            c->held -= (size_t)(start - c->buffer);
            memmove(c->buffer, start, c->held);
        }
    }
}
