/* newlib's system calls for a run under QEMU: stdin is the recording linked into the image
   (input_csv, made by scripts/export-check), stdout and stderr go to the host's console through
   semihosting, exit ends QEMU with success or failure. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

extern const char input_csv[];
extern const unsigned long input_size;
extern char end;

static unsigned long input_at;
static int console[3] = {-1, -1, -1};
static char *heap;

static int semihost(int op, void *arg) {
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

int _read(int fd, char *buf, int len) {
    unsigned long left = input_size - input_at;
    int n = (unsigned long)len < left ? len : (int)left;
    if (fd != 0) { errno = EBADF; return -1; }
    memcpy(buf, input_csv + input_at, (size_t)n);
    input_at += (unsigned long)n;
    return n;
}

int _write(int fd, const char *buf, int len) {
    unsigned args[3];
    if (fd != 1 && fd != 2) { errno = EBADF; return -1; }
    if (console[fd] < 0) {
        unsigned open_args[3] = {(unsigned)":tt", fd == 1 ? 4u : 8u, 3}; /* "w": stdout, "a": stderr */
        console[fd] = semihost(0x01, open_args);
    }
    args[0] = (unsigned)console[fd];
    args[1] = (unsigned)buf;
    args[2] = (unsigned)len;
    return len - semihost(0x05, args); /* SYS_WRITE answers the bytes not written */
}

void _exit(int status) {
    /* ADP_Stopped_ApplicationExit: QEMU exits 0; any other reason: 1. */
    semihost(0x18, (void *)(status == 0 ? 0x20026 : 0x20023));
    for (;;) {}
}

void *_sbrk(ptrdiff_t incr) {
    char *prev;
    if (!heap) heap = &end;
    prev = heap;
    heap += incr;
    return prev;
}

int _close(int fd) { (void)fd; return -1; }
int _fstat(int fd, struct stat *st) { (void)fd; st->st_mode = S_IFCHR; return 0; }
int _isatty(int fd) { (void)fd; return 1; }
int _lseek(int fd, int offset, int whence) { (void)fd; (void)offset; (void)whence; return 0; }
int _kill(int pid, int sig) { (void)pid; (void)sig; errno = EINVAL; return -1; }
int _getpid(void) { return 1; }
