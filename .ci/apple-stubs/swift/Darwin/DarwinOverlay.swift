// Stub for .ci/apple-typecheck: what Apple's Darwin overlay declares in Swift rather than C
// (swift stdlib/public/Platform/Platform.swift), with the same signatures. Never linked: the
// bodies only have to type-check.
import _DarwinC

public var errno: Int32 {
    get { __error().pointee }
    set { __error().pointee = newValue }
}

// fcntl.h's open(const char *, int, ...) is variadic, which Swift does not import.
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32) -> Int32 { fatalError("stub") }
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32, _ mode: mode_t) -> Int32 { fatalError("stub") }

// Glibc's open(_:_:_:) takes a UInt32 mode (Darwin's mode_t is UInt16). A file that imports
// Foundation sees it here through Linux Foundation's re-export of Glibc, and `open(p, f, 0o644)`
// would be ambiguous, which it is not on a Mac. This declaration has the same signature, so it
// hides glibc's one in such files (see Darwin.swift), and is unavailable, so no call picks it.
@available(*, unavailable, message: "glibc's open(_:_:_:) with a UInt32 mode: Darwin's mode_t is UInt16")
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32, _ mode: UInt32) -> Int32 { fatalError("stub") }

// sys/signal.h's `#define SIG_IGN (void (*)(int))1`
public var SIG_IGN: sig_t { unsafeBitCast(1, to: sig_t.self) }

// sys/stat.h's stat(const char *, struct stat *), as Swift imports it (see DarwinC.h).
public func stat(_ path: UnsafePointer<CChar>!, _ buf: UnsafeMutablePointer<stat>!) -> Int32 { __stat(path, buf) }
