/*
 * A slow SD card for a real process: loaded with LD_PRELOAD, every
 * fsync and fdatasync first waits SLOW_SYNC_MS milliseconds (as a card's
 * sync does, 5-50 ms and more during its garbage collection), then syncs.
 * With SLOW_SYNC_LOG set, each sync appends one byte to that file as it
 * begins, so a test counts the syncs a request waited for.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void slow(void) {
    const char *log = getenv("SLOW_SYNC_LOG");
    if (log != NULL) {
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            ssize_t ignored = write(fd, ".", 1);
            (void)ignored;
            close(fd);
        }
    }
    const char *ms = getenv("SLOW_SYNC_MS");
    long m = ms != NULL ? atol(ms) : 0;
    if (m > 0) {
        struct timespec ts = {m / 1000, (m % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) {
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    }
    slow();
    return real(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) {
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    }
    slow();
    return real(fd);
}
