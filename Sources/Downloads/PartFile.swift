import CFileIO
import Foundation
import NIOCore

/// The `.part` file being written: appends, starts writeback early, syncs.
///
/// Writeback of each `writebackInterval` bytes is started as soon as they are
/// written (`sync_file_range`), so the kernel flushes while the network is busy and
/// the final `fdatasync` has little left to do. Used by one task at a time.
struct PartFile: ~Copyable {
    static let writebackInterval: Int64 = 8 << 20

    let path: String
    private let fd: Int32
    /// Bytes in the file.
    private(set) var length: Int64
    private var writebackStart: Int64

    /// Opens (creating) the file and cuts it to `length` bytes.
    init(path: String, truncatingTo length: Int64) throws(DownloadError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .disk("open", path: path, errno: errno) }
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
            let code = errno
            close(fd)
            throw .disk("truncate", path: path, errno: code)
        }
        self.path = path
        self.fd = fd
        self.length = length
        self.writebackStart = length
    }

    deinit {
        close(fd)
    }

    mutating func append(_ buffer: ByteBuffer) throws(DownloadError) {
        try buffer.withUnsafeReadableBytes { (bytes) throws(DownloadError) in
            try writeAll(fd, bytes, path: path)
        }
        length += Int64(buffer.readableBytes)
        if length - writebackStart >= Self.writebackInterval {
            // Advisory: a failure here only means less overlap, never lost data.
            _ = feedsh_start_writeback(fd, off_t(writebackStart), off_t(length - writebackStart))
            writebackStart = length
        }
    }

    /// Makes every byte written so far durable.
    func sync() throws(DownloadError) {
        guard fdatasync(fd) == 0 else { throw .disk("sync", path: path, errno: errno) }
    }
}

/// Makes a rename inside `directory` durable.
func syncDirectory(_ directory: String) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
}
