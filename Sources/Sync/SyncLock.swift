import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The lock one library's syncs take, across processes: `LIBRARY-sync.lock`,
/// held with `flock` for a whole sync. Two feedsh processes that synced one
/// library at once both read the outbox and both sent it; the second now waits
/// for the first, as a second sync in one process does. A process that dies lets
/// the lock go with it.
final class SyncLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The lock file of the library at `libraryPath`.
    static func path(forLibrary libraryPath: String) -> String { libraryPath + "-sync.lock" }

    /// Takes the lock at `path`, waiting for another process's sync up to `wait`;
    /// ``SyncError/busy(path:after:)`` after that.
    static func acquire(_ path: String, within wait: Duration) async throws(SyncError) -> SyncLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .lock(path: path, problem: String(cString: strerror(errno)))
        }
        let deadline = ContinuousClock.now + wait
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline, !Task.isCancelled else {
                close(fd)
                throw .busy(path: path, after: wait)
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return SyncLock(fd: fd)
    }
}
