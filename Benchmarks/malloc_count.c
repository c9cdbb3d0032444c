/* LD_PRELOAD shim for hot-path-allocations.sh: counts malloc calls per thread name (bench-server and bench-writer, bench-clients and bench-subs,
 * everything else) and prints the counts when the process exits. Not part of the harness. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

static atomic_long server, clients, other;
static void *(*real_malloc)(size_t);

void *malloc(size_t size) {
    if (!real_malloc) real_malloc = dlsym(RTLD_NEXT, "malloc");
    char name[17] = {0};
    prctl(PR_GET_NAME, name);
    if (!strcmp(name, "bench-server") || !strcmp(name, "bench-writer")) atomic_fetch_add(&server, 1);
    else if (!strcmp(name, "bench-clients") || !strcmp(name, "bench-subs")) atomic_fetch_add(&clients, 1);
    else atomic_fetch_add(&other, 1);
    return real_malloc(size);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "mallocs server=%ld clients=%ld other=%ld\n", (long)server, (long)clients, (long)other);
}
