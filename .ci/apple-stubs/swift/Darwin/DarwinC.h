/* Stub for .ci/apple-typecheck: the C half of a `Darwin` module with the C library declarations
 * the Swift code uses, as Apple's headers declare them (xnu bsd/sys/*.h, bsd/netinet/in.h,
 * bsd/netinet6/in6.h; Libc include/*.h; libinfo netdb.h, ifaddrs.h; dyld dlfcn.h; Libm math.h),
 * so Swift imports them with the same types as on macOS and iOS: sockaddr_in with sin_len,
 * sa_family_t as UInt8, mode_t as UInt16, st_mtimespec, an fd_set of 32 Int32 words, SOCK_DGRAM
 * as a plain Int32, and so on.
 *
 * Glibc's headers are loaded in the same compiler (Foundation imports them), and two C modules
 * may not define one struct twice, so every C name here carries an `__apl_` prefix and
 * `swift_name` gives Swift the Apple name. Only `size_t` keeps its C name: Swift imports a
 * typedef spelled size_t as Int (Apple's and glibc's are both unsigned long).
 *
 * Only what the code uses is declared. A new call is "cannot find" in a file that imports Darwin
 * and not Foundation; elsewhere it resolves through glibc, unchecked, until its declaration is
 * copied here from Apple's header and its name added to Darwin.swift. */
#ifndef GK_STUB_DARWIN_C_H
#define GK_STUB_DARWIN_C_H

#include <stddef.h> /* size_t */

#define GK_SWIFT(name) __attribute__((swift_name(name)))

/* <sys/_types.h>, <i386/_types.h>, <arm/_types.h> */
typedef unsigned char           __apl_uint8_t;
typedef unsigned short          __apl_uint16_t;
typedef int                     __apl_int32_t;
typedef unsigned int            __apl_uint32_t;
typedef long long               __apl_int64_t;
typedef unsigned long long      __apl_uint64_t;
typedef long                    __darwin_time_t;
typedef long                    __darwin_ssize_t;
typedef __apl_uint32_t          __darwin_socklen_t;
typedef __apl_int32_t           __darwin_suseconds_t;
typedef __apl_int32_t           __darwin_dev_t;
typedef __apl_uint16_t          __darwin_mode_t;
typedef __apl_uint64_t          __darwin_ino64_t;
typedef __apl_int64_t           __darwin_off_t;
typedef __apl_int64_t           __darwin_blkcnt_t;
typedef __apl_int32_t           __darwin_blksize_t;
typedef __apl_uint32_t          __darwin_uid_t;
typedef __apl_uint32_t          __darwin_gid_t;

/* <sys/_types/_*.h>, <sys/types.h> */
typedef __darwin_ssize_t        __apl_ssize_t     GK_SWIFT("ssize_t");
typedef __darwin_time_t         __apl_time_t      GK_SWIFT("time_t");
typedef __darwin_suseconds_t    __apl_suseconds_t GK_SWIFT("suseconds_t");
typedef __darwin_socklen_t      __apl_socklen_t   GK_SWIFT("socklen_t");
typedef __apl_uint8_t           __apl_sa_family_t GK_SWIFT("sa_family_t");
typedef __apl_uint16_t          __apl_in_port_t   GK_SWIFT("in_port_t");
typedef __apl_uint32_t          __apl_in_addr_t   GK_SWIFT("in_addr_t");
typedef unsigned int            __apl_u_int32_t   GK_SWIFT("u_int32_t");
typedef __darwin_mode_t         __apl_mode_t      GK_SWIFT("mode_t");
typedef __darwin_dev_t          __apl_dev_t       GK_SWIFT("dev_t");
typedef __apl_uint16_t          __apl_nlink_t     GK_SWIFT("nlink_t");
typedef __darwin_uid_t          __apl_uid_t       GK_SWIFT("uid_t");
typedef __darwin_gid_t          __apl_gid_t       GK_SWIFT("gid_t");
typedef __darwin_off_t          __apl_off_t       GK_SWIFT("off_t");
typedef __darwin_blkcnt_t       __apl_blkcnt_t    GK_SWIFT("blkcnt_t");
typedef __darwin_blksize_t      __apl_blksize_t   GK_SWIFT("blksize_t");
typedef __apl_int32_t           __apl_pid_t       GK_SWIFT("pid_t");
typedef __apl_uint32_t          __apl_useconds_t  GK_SWIFT("useconds_t");

/* <sys/errno.h>: `#define errno (*__error())`; the Swift overlay's `errno` reads it. */
extern int * __apl___error(void) GK_SWIFT("__error()");
static const int __apl_ESRCH       GK_SWIFT("ESRCH")       = 3;
static const int __apl_EINTR       GK_SWIFT("EINTR")       = 4;
static const int __apl_EAGAIN      GK_SWIFT("EAGAIN")      = 35;
static const int __apl_EWOULDBLOCK GK_SWIFT("EWOULDBLOCK") = 35;  /* EAGAIN */

/* <sys/_types/_timespec.h>, <sys/_types/_timeval.h> */
struct GK_SWIFT("timespec") __apl_timespec {
	__darwin_time_t tv_sec;
	long            tv_nsec;
};
struct GK_SWIFT("timeval") __apl_timeval {
	__darwin_time_t         tv_sec;         /* seconds */
	__darwin_suseconds_t    tv_usec;        /* and microseconds */
};

/* Libc <time.h> */
typedef enum {
	_CLOCK_REALTIME = 0,
	_CLOCK_MONOTONIC = 6,
	_CLOCK_MONOTONIC_RAW = 4,
	_CLOCK_MONOTONIC_RAW_APPROX = 5,
	_CLOCK_UPTIME_RAW = 8,
	_CLOCK_UPTIME_RAW_APPROX = 9,
	_CLOCK_PROCESS_CPUTIME_ID = 12,
	_CLOCK_THREAD_CPUTIME_ID = 16
} __apl_clockid_t GK_SWIFT("clockid_t");
static const __apl_clockid_t __apl_CLOCK_MONOTONIC GK_SWIFT("CLOCK_MONOTONIC") = _CLOCK_MONOTONIC;
int __apl_clock_gettime(__apl_clockid_t __clock_id, struct __apl_timespec *__tp) GK_SWIFT("clock_gettime(_:_:)");
int __apl_nanosleep(const struct __apl_timespec *__rqtp, struct __apl_timespec *__rmtp) GK_SWIFT("nanosleep(_:_:)");
struct GK_SWIFT("tm") __apl_tm {
	int	tm_sec;		/* seconds after the minute [0-60] */
	int	tm_min;		/* minutes after the hour [0-59] */
	int	tm_hour;	/* hours since midnight [0-23] */
	int	tm_mday;	/* day of the month [1-31] */
	int	tm_mon;		/* months since January [0-11] */
	int	tm_year;	/* years since 1900 */
	int	tm_wday;	/* days since Sunday [0-6] */
	int	tm_yday;	/* days since January 1 [0-365] */
	int	tm_isdst;	/* Daylight Savings Time flag */
	long	tm_gmtoff;	/* offset from UTC in seconds */
	char	*tm_zone;	/* timezone abbreviation */
};
__apl_time_t   __apl_time(__apl_time_t *) GK_SWIFT("time(_:)");
struct __apl_tm *__apl_gmtime_r(const __apl_time_t * __restrict, struct __apl_tm * __restrict) GK_SWIFT("gmtime_r(_:_:)");

/* Libc <unistd.h> */
static const int __apl_STDOUT_FILENO GK_SWIFT("STDOUT_FILENO") = 1;
int           __apl_close(int) GK_SWIFT("close(_:)");
int           __apl_fsync(int) GK_SWIFT("fsync(_:)");
__apl_pid_t   __apl_getpid(void) GK_SWIFT("getpid()");
int           __apl_pipe(int [2]) GK_SWIFT("pipe(_:)");
int           __apl_unlink(const char *) GK_SWIFT("unlink(_:)");
int           __apl_usleep(__apl_useconds_t) GK_SWIFT("usleep(_:)");
int           __apl_isatty(int) GK_SWIFT("isatty(_:)");
int           __apl_execv(const char * __path, char * const * __argv) GK_SWIFT("execv(_:_:)");
__apl_ssize_t __apl_read(int, void *, size_t __nbyte) GK_SWIFT("read(_:_:_:)");
__apl_ssize_t __apl_write(int __fd, const void * __buf, size_t __nbyte) GK_SWIFT("write(_:_:_:)");

/* Libc <string.h>, <stdlib.h>, <stdio.h>; Libm <math.h> */
void *__apl_memchr(const void *__s, int __c, size_t __n) GK_SWIFT("memchr(_:_:_:)");
char *__apl_strerror(int __errnum) GK_SWIFT("strerror(_:)");
char *__apl_strdup(const char *__s1) GK_SWIFT("strdup(_:)");
float __apl_strtof(const char *, char **) GK_SWIFT("strtof(_:_:)");
int   __apl_rename(const char *__old, const char *__new) GK_SWIFT("rename(_:_:)");
extern float __apl_cosf(float) GK_SWIFT("cosf(_:)");
extern float __apl_logf(float) GK_SWIFT("logf(_:)");

/* xnu <sys/fcntl.h>: open(const char *, int, ...) is variadic; the overlay declares `open`. */
static const int __apl_O_RDONLY  GK_SWIFT("O_RDONLY")  = 0x0000;
static const int __apl_O_WRONLY  GK_SWIFT("O_WRONLY")  = 0x0001;
static const int __apl_O_APPEND  GK_SWIFT("O_APPEND")  = 0x00000008;
static const int __apl_O_CREAT   GK_SWIFT("O_CREAT")   = 0x00000200;
static const int __apl_O_TRUNC   GK_SWIFT("O_TRUNC")   = 0x00000400;
static const int __apl_O_CLOEXEC GK_SWIFT("O_CLOEXEC") = 0x01000000;
static const int __apl_AT_FDCWD  GK_SWIFT("AT_FDCWD")  = -2;

/* xnu <sys/stat.h>: struct stat is __DARWIN_STRUCT_STAT64 (64-bit inodes) */
struct GK_SWIFT("stat") __apl_stat {
	__apl_dev_t     st_dev;                 /* [XSI] ID of device containing file */
	__apl_mode_t    st_mode;                /* [XSI] Mode of file (see below) */
	__apl_nlink_t   st_nlink;               /* [XSI] Number of hard links */
	__darwin_ino64_t st_ino;                /* [XSI] File serial number */
	__apl_uid_t     st_uid;                 /* [XSI] User ID of the file */
	__apl_gid_t     st_gid;                 /* [XSI] Group ID of the file */
	__apl_dev_t     st_rdev;                /* [XSI] Device ID */
	struct __apl_timespec st_atimespec;     /* time of last access */
	struct __apl_timespec st_mtimespec;     /* time of last data modification */
	struct __apl_timespec st_ctimespec;     /* time of last status change */
	struct __apl_timespec st_birthtimespec; /* time of file creation(birth) */
	__apl_off_t     st_size;                /* [XSI] file size, in bytes */
	__apl_blkcnt_t  st_blocks;              /* [XSI] blocks allocated for file */
	__apl_blksize_t st_blksize;             /* [XSI] optimal blocksize for I/O */
	__apl_uint32_t  st_flags;               /* user defined flags for file */
	__apl_uint32_t  st_gen;                 /* file generation number */
	__apl_int32_t   st_lspare;              /* RESERVED: DO NOT USE! */
	__apl_int64_t   st_qspare[2];           /* RESERVED: DO NOT USE! */
};
int __apl_fstat(int, struct __apl_stat *) GK_SWIFT("fstat(_:_:)");
int __apl_utimensat(int __fd, const char *__path, const struct __apl_timespec __times[2],
    int __flag) GK_SWIFT("utimensat(_:_:_:_:)");
/* Swift calls this one `stat` too; DarwinOverlay.swift gives it that name, since one module
 * cannot re-export a struct and a function of the same name one by one. */
int __apl_stat_fn(const char *, struct __apl_stat *) GK_SWIFT("__stat(_:_:)");

/* xnu <sys/_types/_fd_def.h>, <sys/_select.h>: __DARWIN_FD_SETSIZE 1024, 32-bit words */
struct GK_SWIFT("fd_set") __apl_fd_set {
	__apl_int32_t   fds_bits[32];
};
int __apl_select(int, struct __apl_fd_set * __restrict, struct __apl_fd_set * __restrict,
    struct __apl_fd_set * __restrict, struct __apl_timeval * __restrict) GK_SWIFT("select(_:_:_:_:_:)");

/* xnu <sys/poll.h> */
static const int __apl_POLLIN GK_SWIFT("POLLIN") = 0x0001;
struct GK_SWIFT("pollfd") __apl_pollfd {
	int     fd;
	short   events;
	short   revents;
};
typedef unsigned int __apl_nfds_t GK_SWIFT("nfds_t");
int __apl_poll(struct __apl_pollfd *, __apl_nfds_t, int) GK_SWIFT("poll(_:_:_:)");

/* xnu <sys/socket.h> */
static const int __apl_SOCK_DGRAM   GK_SWIFT("SOCK_DGRAM")   = 2;
static const int __apl_SO_REUSEADDR GK_SWIFT("SO_REUSEADDR") = 0x0004;
static const int __apl_SOL_SOCKET   GK_SWIFT("SOL_SOCKET")   = 0xffff;
static const int __apl_AF_INET      GK_SWIFT("AF_INET")      = 2;
static const int __apl_AF_INET6     GK_SWIFT("AF_INET6")     = 30;
struct GK_SWIFT("sockaddr") __apl_sockaddr {
	__apl_uint8_t       sa_len;         /* total length */
	__apl_sa_family_t   sa_family;      /* [XSI] address family */
	char                sa_data[14];    /* [XSI] addr value */
};
int           __apl_bind(int, const struct __apl_sockaddr *, __apl_socklen_t) GK_SWIFT("bind(_:_:_:)");
int           __apl_getsockname(int, struct __apl_sockaddr * __restrict, __apl_socklen_t * __restrict) GK_SWIFT("getsockname(_:_:_:)");
__apl_ssize_t __apl_recv(int, void *, size_t, int) GK_SWIFT("recv(_:_:_:_:)");
__apl_ssize_t __apl_sendto(int, const void *, size_t,
    int, const struct __apl_sockaddr *, __apl_socklen_t) GK_SWIFT("sendto(_:_:_:_:_:_:)");
int           __apl_setsockopt(int, int, int, const void *, __apl_socklen_t) GK_SWIFT("setsockopt(_:_:_:_:_:)");
int           __apl_socket(int, int, int) GK_SWIFT("socket(_:_:_:)");

/* xnu <netinet/in.h>; Libc <arpa/inet.h> */
struct GK_SWIFT("in_addr") __apl_in_addr {
	__apl_in_addr_t s_addr;
};
static const __apl_u_int32_t __apl_INADDR_ANY GK_SWIFT("INADDR_ANY") = 0x00000000;
struct GK_SWIFT("sockaddr_in") __apl_sockaddr_in {
	__apl_uint8_t       sin_len;
	__apl_sa_family_t   sin_family;
	__apl_in_port_t     sin_port;
	struct  __apl_in_addr sin_addr;
	char                sin_zero[8];
};
/* xnu <netinet6/in6.h> */
struct GK_SWIFT("in6_addr") __apl_in6_addr {
	union {
		__apl_uint8_t   __u6_addr8[16];
		__apl_uint16_t  __u6_addr16[8];
		__apl_uint32_t  __u6_addr32[4];
	} __u6_addr;                    /* 128-bit IP6 address */
};
__apl_in_addr_t __apl_inet_addr(const char *) GK_SWIFT("inet_addr(_:)");
int __apl_inet_pton(int, const char *, void *) GK_SWIFT("inet_pton(_:_:_:)");

/* libinfo <netdb.h> */
struct GK_SWIFT("addrinfo") __apl_addrinfo {
	int     ai_flags;       /* AI_PASSIVE, AI_CANONNAME, AI_NUMERICHOST */
	int     ai_family;      /* PF_xxx */
	int     ai_socktype;    /* SOCK_xxx */
	int     ai_protocol;    /* 0 or IPPROTO_xxx for IPv4 and IPv6 */
	__apl_socklen_t ai_addrlen;     /* length of ai_addr */
	char    *ai_canonname;  /* canonical name for hostname */
	struct  __apl_sockaddr *ai_addr;        /* binary address */
	struct  __apl_addrinfo *ai_next;        /* next structure in linked list */
};
int         __apl_getaddrinfo(const char * __restrict, const char * __restrict,
                const struct __apl_addrinfo * __restrict, struct __apl_addrinfo ** __restrict) GK_SWIFT("getaddrinfo(_:_:_:_:)");
void        __apl_freeaddrinfo(struct __apl_addrinfo *) GK_SWIFT("freeaddrinfo(_:)");
const char *__apl_gai_strerror(int) GK_SWIFT("gai_strerror(_:)");
static const int __apl_NI_MAXHOST     GK_SWIFT("NI_MAXHOST")     = 1025;
static const int __apl_NI_NUMERICHOST GK_SWIFT("NI_NUMERICHOST") = 0x00000002;
int         __apl_getnameinfo(const struct __apl_sockaddr * __restrict, __apl_socklen_t, char * __restrict,
                __apl_socklen_t, char * __restrict, __apl_socklen_t, int) GK_SWIFT("getnameinfo(_:_:_:_:_:_:_:)");

/* <ifaddrs.h> */
struct GK_SWIFT("ifaddrs") __apl_ifaddrs {
	struct __apl_ifaddrs  *ifa_next;
	char		*ifa_name;
	unsigned int	 ifa_flags;
	struct __apl_sockaddr	*ifa_addr;
	struct __apl_sockaddr	*ifa_netmask;
	struct __apl_sockaddr	*ifa_dstaddr;
	void		*ifa_data;
};
extern int __apl_getifaddrs(struct __apl_ifaddrs **) GK_SWIFT("getifaddrs(_:)");
extern void __apl_freeifaddrs(struct __apl_ifaddrs *) GK_SWIFT("freeifaddrs(_:)");

/* xnu <sys/signal.h>: SIG_IGN, `(void (*)(int))1`, is a macro Swift cannot import; the overlay
 * declares it. */
static const int __apl_SIGINT  GK_SWIFT("SIGINT")  = 2;
static const int __apl_SIGKILL GK_SWIFT("SIGKILL") = 9;
static const int __apl_SIGPIPE GK_SWIFT("SIGPIPE") = 13;
static const int __apl_SIGTERM GK_SWIFT("SIGTERM") = 15;
typedef void (*__apl_sig_t)(int) GK_SWIFT("sig_t");     /* type of signal function */
void (*__apl_signal(int, void (*)(int)))(int) GK_SWIFT("signal(_:_:)");
int __apl_kill(__apl_pid_t, int) GK_SWIFT("kill(_:_:)");

/* dyld <dlfcn.h> */
typedef struct GK_SWIFT("dl_info") __apl_dl_info {
        const char      *dli_fname;     /* Pathname of shared object */
        void            *dli_fbase;     /* Base address of shared object */
        const char      *dli_sname;     /* Name of nearest symbol */
        void            *dli_saddr;     /* Address of nearest symbol */
} __apl_Dl_info GK_SWIFT("Dl_info");
extern int __apl_dladdr(const void *, __apl_Dl_info *) GK_SWIFT("dladdr(_:_:)");

#endif /* GK_STUB_DARWIN_C_H */
