import CFileIO
import Foundation
import NIOCore

/// The `.part` file of one download, open for the whole job and locked: appends,
/// starts writeback early, syncs, and reads back what it holds.
///
/// It is opened with `O_NOFOLLOW` and must be a regular file, so a symbolic link
/// planted at the `.part` name never redirects the bytes elsewhere. An exclusive
/// `flock` held while the file is open makes one process (one job) the owner of the
/// download; a second one is refused with the first one's pid (``lockHolder(of:)``).
/// After locking, the path must still name the locked file: an owner that finished
/// and renamed it in the meantime is noticed.
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
    /// The open descriptor, for a sync on another task while this file stays open
    /// (``BackgroundConfirm``).
    var descriptor: Int32 { fd }
    private var writebackStart: Int64

    /// Opens (creating) and locks the file at `path`.
    init(path: String) throws(DownloadError) {
        var attempt = 0
        while true {
            attempt += 1
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw errno == ELOOP ? .unsafePath(path) : .disk("open", path: path, errno: errno)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                throw .unsafePath(path)
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK { throw .locked(path: path, pid: Self.lockHolder(ofFile: info)) }
                throw .disk("lock", path: path, errno: code)
            }
            if Self.path(path, names: info) {
                self.path = path
                self.fd = fd
                self.length = Int64(info.st_size)
                self.writebackStart = length
                return
            }
            // The owner renamed or removed it between our open and our lock.
            close(fd)
            guard attempt < 3 else { throw .locked(path: path, pid: nil) }
        }
    }

    deinit {
        close(fd)
    }

    /// Cuts the file to `length` bytes and appends from there.
    mutating func truncate(to length: Int64) throws(DownloadError) {
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
            throw .disk("truncate", path: path, errno: errno)
        }
        self.length = length
        writebackStart = length
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

    /// The `count` bytes at `offset`.
    func read(at offset: Int64, count: Int) throws(DownloadError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw .disk("read", path: path, errno: got < 0 ? errno : EIO) }
            done += got
        }
        return bytes
    }

    /// Deletes the file when it holds nothing and no sidecar describes it, as long
    /// as the path still names this file (the lock is still held).
    func removeIfEmpty(sidecar: String) {
        var mine = stat()
        guard length == 0, !fileExists(sidecar), fstat(fd, &mine) == 0, Self.path(path, names: mine) else { return }
        unlink(path)
    }

    /// Whether `path` still names the file `info` describes: not renamed, removed or
    /// replaced since it was opened.
    private static func path(_ path: String, names info: stat) -> Bool {
        var now = stat()
        return lstat(path, &now) == 0 && now.st_ino == info.st_ino && now.st_dev == info.st_dev
    }

    /// Deletes a download's `.part` and sidecar unless another process (or job)
    /// owns it. Returns whether there was a `.part`.
    static func remove(path: String, sidecar: String) throws(DownloadError) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            // No `.part` (or a link in its place, which is removed, not followed).
            let existed = unlink(path) == 0
            unlink(sidecar)
            return existed
        }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var info = stat()
            fstat(fd, &info)
            throw .locked(path: path, pid: lockHolder(ofFile: info))
        }
        let existed = unlink(path) == 0
        unlink(sidecar)
        return existed
    }

    /// Makes every byte written so far durable.
    func sync() throws(DownloadError) {
        guard fdatasync(fd) == 0 else { throw .disk("sync", path: path, errno: errno) }
    }

    /// The pid of the process holding a lock on the `.part` at `path`: nil when
    /// nobody does (or the file is absent), `.some(nil)` when one does but its pid
    /// cannot be read.
    static func lockHolder(of path: String) -> Int32?? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .some(nil) }
        return .some(lockHolder(ofFile: info))
    }

    /// Reads the holder of a `flock` on the file `info` describes from `/proc/locks`
    /// (`1: FLOCK  ADVISORY  WRITE 4242 fe:01:1311 0 EOF`: pid, then the device's
    /// major and minor number in hex and the inode).
    static func lockHolder(ofFile info: stat) -> Int32? {
        guard let text = readWhole("/proc/locks") else { return nil }
        let (major, minor) = (deviceMajor(info.st_dev), deviceMinor(info.st_dev))
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // A waiting lock's line has "->" before FLOCK; only the holder counts.
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[2]) == UInt64(info.st_ino), UInt64(file[0], radix: 16) == major,
                UInt64(file[1], radix: 16) == minor
            else { continue }
            return Int32(fields[4])
        }
        return nil
    }

    /// glibc's `major()` and `minor()`, which Swift does not import (macros).
    static func deviceMajor(_ device: dev_t) -> UInt64 {
        let device = UInt64(device)
        return ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
    }

    static func deviceMinor(_ device: dev_t) -> UInt64 {
        let device = UInt64(device)
        return (device & 0xff) | ((device >> 12) & ~0xff)
    }
}

/// A whole file read with `read(2)` to its end. `String(contentsOfFile:)` reads a
/// file in `/proc` (which says it has no size) only up to its first 4 KiB: with
/// many locks held on the machine, a lock's holder was missed.
func readWhole(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return String(decoding: bytes, as: UTF8.self) }
        bytes.append(contentsOf: buffer[..<count])
    }
}

/// Makes a rename inside `directory` durable.
func syncDirectory(_ directory: String) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
}
