/* The simplest echo server there is, for Benchmarks/targets.sh: one client at a time, blocking read and write, every
 * byte sent back as it came (any framing). Usage: echo_server PORT */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 16)) return perror("bind"), 1;
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0) continue;
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char buffer[65536];
        ssize_t count;
        while ((count = read(client, buffer, sizeof buffer)) > 0) {
            for (ssize_t sent = 0, n; sent < count; sent += n)
                if ((n = write(client, buffer + sent, (size_t)(count - sent))) <= 0) break;
        }
        close(client);
    }
}
