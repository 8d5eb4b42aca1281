import Foundation
import NIOCore
import Synchronization

/// Where a new subscription's first read is kept while it arrives: a file with
/// no name (made and unlinked at once, so nothing is left behind by a crash),
/// written as the body comes and parsed from its start once it is whole, inside
/// the transaction that stores it. A feed of 200,000 items is then never held
/// in memory, whole or parsed, and the library is not held while the network
/// is slow.
public final class SpooledFeed: Sendable {
    let descriptor: Int32
    /// Where it was made (unlinked since): what an error names.
    let path: String
    /// Why a write failed (errno), once one has: the updater's failure, not the feed's.
    private let failed = Mutex<Int32?>(nil)

    /// A file in `folder` (on the library's disk, not a memory-backed /tmp).
    public init(in folder: URL) throws(SpoolError) {
        let path = folder.appendingPathComponent(".feedsh-first-read-\(UInt64.random(in: 0...UInt64.max))").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SpoolError(path: path, code: errno) }
        unlink(path)
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Why a spool could not be made or written.
    public struct SpoolError: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let code: Int32
        public var description: String { "cannot keep the feed in \(path): \(String(cString: strerror(code)))" }
        /// Whether the disk was full.
        public var diskFull: Bool { code == ENOSPC || code == EDQUOT }
    }

    /// Why a write failed, when one did.
    public var writeFailure: SpoolError? {
        failed.withLock { $0 }.map { SpoolError(path: path, code: $0) }
    }

    /// Empties the file for a new attempt of the request. False when it cannot be.
    func begin() -> Bool {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            let code = errno
            failed.withLock { $0 = code }
            return false
        }
        return true
    }

    /// Appends `bytes`; false (and ``writeFailure`` says why) when the disk refused.
    func write(_ bytes: ByteBuffer) -> Bool {
        bytes.withUnsafeReadableBytes { buffer in
            var left = buffer
            while !left.isEmpty {
                let written = Glibc.write(descriptor, left.baseAddress, left.count)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    let code = written < 0 ? errno : ENOSPC
                    failed.withLock { $0 = code }
                    return false
                }
                left = UnsafeRawBufferPointer(rebasing: left[written...])
            }
            return true
        }
    }

    /// Parses what was spooled, from its first byte, on this thread: the items go
    /// to `sink` in batches (false stops the parse), and the feed comes back
    /// without them. `url` is where it was read from (links resolve against it).
    public func parse(url: URL, sink: ([FeedItem]) -> Bool) throws(FeedParseError) -> Feed {
        try FeedParser.parse(descriptor: descriptor, url: url, sink: sink)
    }
}
