import Foundation
#if !canImport(Accelerate)
import COpenBLAS
#endif

/// OpenBLAS's thread count as GestureKit treats it. The count is one setting for the whole
/// process, which a host app may use for its own BLAS work.
///
/// Cross-validation (its folds train in parallel, which BLAS threads would oversubscribe) and LSTM
/// training (small matrices, faster on one thread) limit OpenBLAS to one thread while they run;
/// meanwhile BLAS calls elsewhere in the process run on one thread too. When the last such call
/// returns, the count the process had is restored, unless the app set another count meanwhile,
/// which is kept. With Accelerate (Apple platforms) nothing is changed.
public enum BLASThreading {
    /// Whether training may limit OpenBLAS to one thread while it runs (see the type). Default:
    /// true. An app that sets OpenBLAS's thread count itself and wants it left alone sets false;
    /// read when a training call starts.
    public static var limitsWhileTraining: Bool {
        get { BLASThreads.shared.isEnabled }
        set { BLASThreads.shared.isEnabled = newValue }
    }
}

/// Counts the scopes that need single-threaded BLAS (see ``Linalg/singleThreaded(_:)``). The first
/// scope in saves the count and sets 1; the last one out restores the saved count if the count is
/// still the 1 it set.
final class BLASThreads: @unchecked Sendable {
    #if canImport(Accelerate)
    static let shared = BLASThreads(count: { 1 }, setCount: { _ in })
    #else
    static let shared = BLASThreads(count: { openblas_get_num_threads() }, setCount: { openblas_set_num_threads($0) })
    #endif
    private let lock = NSLock()
    private let count: @Sendable () -> Int32
    private let setCount: @Sendable (Int32) -> Void
    private var depth = 0
    private var saved: Int32?
    private var enabled = true

    /// `count` and `setCount` read and set the library's thread count (tests pass a fake).
    init(count: @escaping @Sendable () -> Int32, setCount: @escaping @Sendable (Int32) -> Void) {
        self.count = count
        self.setCount = setCount
    }

    // lock()/unlock(), not NSLock.withLock: that needs macOS 14, the package declares 13.
    var isEnabled: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return enabled
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            enabled = newValue
        }
    }

    func enter() {
        lock.lock()
        defer { lock.unlock() }
        if depth == 0, enabled {
            let now = count()
            if now != 1 {
                saved = now
                setCount(1)
            }
        }
        depth += 1
    }

    func leave() {
        lock.lock()
        defer { lock.unlock() }
        depth -= 1
        if depth == 0, let s = saved {
            saved = nil
            if count() == 1 { setCount(s) }
        }
    }
}
