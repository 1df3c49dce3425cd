// Stub for .ci/apple-typecheck: the `Darwin` module, so `canImport(Darwin)` holds and
// `import Darwin` gives the Apple declarations of DarwinC.h and DarwinOverlay.swift. The check
// also imports it into every file, as Apple's Foundation re-exports Darwin.
//
// Every name comes through a scoped import (`import struct M.name`): this is the list of what the
// code uses from the C library. The scoping matters because Linux's Foundation re-exports Glibc:
// where both modules declare a name, Swift prefers the one a file sees through a scoped import, so
// files get Darwin's `stat`, `sockaddr_in` and `errno`, as on a Mac, not glibc's.

// Types
@_exported import struct _DarwinC.addrinfo
@_exported import struct _DarwinC.clockid_t
@_exported import struct _DarwinC.dl_info
@_exported import struct _DarwinC.fd_set
@_exported import struct _DarwinC.ifaddrs
@_exported import struct _DarwinC.in6_addr
@_exported import struct _DarwinC.in_addr
@_exported import struct _DarwinC.pollfd
@_exported import struct _DarwinC.sockaddr
@_exported import struct _DarwinC.sockaddr_in
@_exported import struct _DarwinC.stat
@_exported import struct _DarwinC.timespec
@_exported import struct _DarwinC.timeval
@_exported import struct _DarwinC.tm
@_exported import typealias _DarwinC.Dl_info
@_exported import typealias _DarwinC.blkcnt_t
@_exported import typealias _DarwinC.blksize_t
@_exported import typealias _DarwinC.dev_t
@_exported import typealias _DarwinC.gid_t
@_exported import typealias _DarwinC.in_addr_t
@_exported import typealias _DarwinC.in_port_t
@_exported import typealias _DarwinC.mode_t
@_exported import typealias _DarwinC.nfds_t
@_exported import typealias _DarwinC.nlink_t
@_exported import typealias _DarwinC.off_t
@_exported import typealias _DarwinC.pid_t
@_exported import typealias _DarwinC.sa_family_t
@_exported import typealias _DarwinC.sig_t
@_exported import typealias _DarwinC.socklen_t
@_exported import typealias _DarwinC.ssize_t
@_exported import typealias _DarwinC.suseconds_t
@_exported import typealias _DarwinC.time_t
@_exported import typealias _DarwinC.uid_t
@_exported import typealias _DarwinC.useconds_t

// Constants (macros in Apple's headers)
@_exported import var _DarwinC.AF_INET
@_exported import var _DarwinC.AF_INET6
@_exported import var _DarwinC.AT_FDCWD
@_exported import var _DarwinC.CLOCK_MONOTONIC
@_exported import var _DarwinC.EAGAIN
@_exported import var _DarwinC.EINTR
@_exported import var _DarwinC.ESRCH
@_exported import var _DarwinC.EWOULDBLOCK
@_exported import var _DarwinC.INADDR_ANY
@_exported import var _DarwinC.NI_MAXHOST
@_exported import var _DarwinC.NI_NUMERICHOST
@_exported import var _DarwinC.O_APPEND
@_exported import var _DarwinC.O_CLOEXEC
@_exported import var _DarwinC.O_CREAT
@_exported import var _DarwinC.O_RDONLY
@_exported import var _DarwinC.O_TRUNC
@_exported import var _DarwinC.O_WRONLY
@_exported import var _DarwinC.POLLIN
@_exported import var _DarwinC.SIGINT
@_exported import var _DarwinC.SIGKILL
@_exported import var _DarwinC.SIGPIPE
@_exported import var _DarwinC.SIGTERM
@_exported import var _DarwinC.SOCK_DGRAM
@_exported import var _DarwinC.SOL_SOCKET
@_exported import var _DarwinC.SO_REUSEADDR
@_exported import var _DarwinC.STDOUT_FILENO

// Functions
@_exported import func _DarwinC.bind
@_exported import func _DarwinC.clock_gettime
@_exported import func _DarwinC.close
@_exported import func _DarwinC.cosf
@_exported import func _DarwinC.dladdr
@_exported import func _DarwinC.execv
@_exported import func _DarwinC.freeaddrinfo
@_exported import func _DarwinC.freeifaddrs
@_exported import func _DarwinC.fstat
@_exported import func _DarwinC.fsync
@_exported import func _DarwinC.gai_strerror
@_exported import func _DarwinC.getaddrinfo
@_exported import func _DarwinC.getifaddrs
@_exported import func _DarwinC.getnameinfo
@_exported import func _DarwinC.getpid
@_exported import func _DarwinC.getsockname
@_exported import func _DarwinC.gmtime_r
@_exported import func _DarwinC.inet_addr
@_exported import func _DarwinC.inet_pton
@_exported import func _DarwinC.isatty
@_exported import func _DarwinC.kill
@_exported import func _DarwinC.logf
@_exported import func _DarwinC.memchr
@_exported import func _DarwinC.nanosleep
@_exported import func _DarwinC.pipe
@_exported import func _DarwinC.poll
@_exported import func _DarwinC.read
@_exported import func _DarwinC.recv
@_exported import func _DarwinC.rename
@_exported import func _DarwinC.select
@_exported import func _DarwinC.sendto
@_exported import func _DarwinC.setsockopt
@_exported import func _DarwinC.signal
@_exported import func _DarwinC.socket
@_exported import func _DarwinC.strdup
@_exported import func _DarwinC.strerror
@_exported import func _DarwinC.strtof
@_exported import func _DarwinC.time
@_exported import func _DarwinC.unlink
@_exported import func _DarwinC.usleep
@_exported import func _DarwinC.utimensat
@_exported import func _DarwinC.write

// Swift overlay
@_exported import var _DarwinOverlay.errno
@_exported import var _DarwinOverlay.SIG_IGN
@_exported import func _DarwinOverlay.open
@_exported import func _DarwinOverlay.stat
