// Galley's lock: `Mutex` from the standard library's Synchronization module, except in builds for
// the thread sanitizer. Modules import it from here (`import GalleyBase`, never
// `import Synchronization` beside it, which would make `Mutex` ambiguous in those builds).
//
// Why: ThreadSanitizer on Linux does not see the synchronization inside Synchronization.Mutex
// (its lock word is taken and released in the uninstrumented standard library), so it reports
// every access made under one as a race: a 10-line program with four threads counting under a
// Mutex gets dozens of reports. A pthread mutex is intercepted by the sanitizer, so
// `scripts/sanitize.sh thread` builds with GALLEY_THREAD_SANITIZER and gets this one instead:
// the same locking, made visible, and any access outside a lock is still reported.

#if GALLEY_THREAD_SANITIZER
#if canImport(Glibc)
import Glibc
#endif

/// A lock around a value, with `Synchronization.Mutex`'s API, made of a pthread mutex that the
/// thread sanitizer sees.
///
/// Sendable because `value` is only ever touched inside `withLock`, under the mutex.
public final class Mutex<Value: ~Copyable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// A lock around `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        value = initialValue
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
@_exported import Synchronization
#endif
