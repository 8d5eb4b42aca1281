import CFileIO
import Foundation
import NIOCore
import SystemPackage

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
    private let fd: SystemPackage.FileDescriptor
    /// Bytes in the file.
    private(set) var length: Int64
    /// The open descriptor, for a sync on another task while this file stays open
    /// (``BackgroundConfirm``).
    var descriptor: Int32 { fd.rawValue }
    private var writebackStart: Int64

    /// Opens (creating) and locks the file at `path`.
    init(path: String) throws(DownloadError) {
        for _ in 0..<3 {
            let fd: SystemPackage.FileDescriptor
            do {
                fd = try .open(
                    FilePath(path),
                    .readWrite,
                    options: [.create, .noFollow, .closeOnExec],
                    permissions: [.ownerReadWrite, .groupRead, .otherRead]
                )
            } catch {
                throw error as? Errno == .tooManySymbolicLinkLevels
                    ? .unsafePath(path) : .disk("open", path: path, error)
            }
            let info: Stat
            do throws(DownloadError) {
                info = try Self.lock(fd, path: path)
            } catch {
                try? fd.close()
                throw error
            }
            if Self.path(path, names: info) {
                self.path = path
                self.fd = fd
                self.length = info.size
                self.writebackStart = length
                return
            }
            // The owner renamed or removed it between our open and our lock.
            try? fd.close()
        }
        throw .locked(path: path, pid: nil)
    }

    /// Takes the exclusive lock on `fd`, a regular file, and says what it is.
    private static func lock(_ fd: SystemPackage.FileDescriptor, path: String) throws(DownloadError) -> Stat {
        let info: Stat
        do { info = try fd.stat() } catch { throw .disk("stat", path: path, error) }
        guard info.type == .regular else { throw .unsafePath(path) }
        if flock(fd.rawValue, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EWOULDBLOCK { throw .locked(path: path, pid: lockHolder(ofFile: info)) }
            throw .disk("lock", path: path, errno: code)
        }
        return info
    }

    deinit {
        try? fd.close()
    }

    /// Cuts the file to `length` bytes and appends from there.
    mutating func truncate(to length: Int64) throws(DownloadError) {
        do {
            try fd.resize(to: length)
            try fd.seek(offset: length, from: .start)
        } catch {
            throw .disk("truncate", path: path, error)
        }
        self.length = length
        writebackStart = length
    }

    mutating func append(_ buffer: ByteBuffer) throws(DownloadError) {
        do {
            try buffer.withUnsafeReadableBytes { _ = try fd.writeAll($0) }
        } catch {
            throw .disk("write", path: path, error)
        }
        length += Int64(buffer.readableBytes)
        if length - writebackStart >= Self.writebackInterval {
            // Advisory: a failure here only means less overlap, never lost data.
            _ = feedsh_start_writeback(fd.rawValue, off_t(writebackStart), off_t(length - writebackStart))
            writebackStart = length
        }
    }

    /// The `count` bytes at `offset`.
    func read(at offset: Int64, count: Int) throws(DownloadError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got: Int
            do {
                got = try bytes.withUnsafeMutableBytes { buffer in
                    try fd.read(fromAbsoluteOffset: offset + Int64(done), into: .init(rebasing: buffer[done...]))
                }
            } catch {
                throw .disk("read", path: path, error)
            }
            guard got > 0 else { throw .disk("read", path: path, errno: EIO) }
            done += got
        }
        return bytes
    }

    /// Deletes the file when it holds nothing and no sidecar describes it, as long
    /// as the path still names this file (the lock is still held).
    func removeIfEmpty(sidecar: String) {
        guard length == 0, !fileExists(sidecar), let mine = try? fd.stat(), Self.path(path, names: mine) else { return }
        unlink(path)
    }

    /// Whether `path` still names the file `info` describes: not renamed, removed or
    /// replaced since it was opened.
    private static func path(_ path: String, names info: Stat) -> Bool {
        guard let now = try? FilePath(path).stat(followTargetSymlink: false) else { return false }
        return now.inode == info.inode && now.deviceID == info.deviceID
    }

    /// Deletes a download's `.part` and sidecar unless another process (or job)
    /// owns it. Returns whether there was a `.part`.
    static func remove(path: String, sidecar: String) throws(DownloadError) -> Bool {
        guard let fd = openForLock(path) else {
            // No `.part` (or a link in its place, which is removed, not followed).
            let existed = unlink(path) == 0
            unlink(sidecar)
            return existed
        }
        defer { try? fd.close() }
        if flock(fd.rawValue, LOCK_EX | LOCK_NB) != 0 {
            throw .locked(path: path, pid: (try? fd.stat()).flatMap(lockHolder(ofFile:)))
        }
        let existed = unlink(path) == 0
        unlink(sidecar)
        return existed
    }

    /// Makes every byte written so far durable.
    func sync() throws(DownloadError) {
        guard fdatasync(fd.rawValue) == 0 else { throw .disk("sync", path: path, errno: errno) }
    }

    /// The pid of the process holding a lock on the `.part` at `path`: nil when
    /// nobody does (or the file is absent), `.some(nil)` when one does but its pid
    /// cannot be read.
    static func lockHolder(of path: String) -> Int32?? {
        guard let fd = openForLock(path) else { return nil }
        defer { try? fd.close() }
        if flock(fd.rawValue, LOCK_EX | LOCK_NB) == 0 {
            flock(fd.rawValue, LOCK_UN)
            return nil
        }
        guard let info = try? fd.stat() else { return .some(nil) }
        return .some(lockHolder(ofFile: info))
    }

    /// The file at `path` opened only to take or test its lock; nil when it is
    /// absent or a symbolic link.
    private static func openForLock(_ path: String) -> SystemPackage.FileDescriptor? {
        try? SystemPackage.FileDescriptor.open(FilePath(path), .readOnly, options: [.noFollow, .closeOnExec])
    }

    /// Reads the holder of a `flock` on the file `info` describes from `/proc/locks`
    /// (`1: FLOCK  ADVISORY  WRITE 4242 fe:01:1311 0 EOF`: pid, then the device's
    /// major and minor number in hex and the inode).
    static func lockHolder(ofFile info: Stat) -> Int32? {
        guard let text = readWhole("/proc/locks") else { return nil }
        let (major, minor) = (deviceMajor(info.deviceID.rawValue), deviceMinor(info.deviceID.rawValue))
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // A waiting lock's line has "->" before FLOCK; only the holder counts.
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[2]) == UInt64(info.inode.rawValue), UInt64(file[0], radix: 16) == major,
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
    guard let fd = try? SystemPackage.FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec) else {
        return nil
    }
    return try? fd.closeAfter {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(contentsOf: buffer[..<count])
        }
    }
}

/// Makes a rename inside `directory` durable.
func syncDirectory(_ directory: String) {
    guard
        let fd = try? SystemPackage.FileDescriptor.open(
            FilePath(directory),
            .readOnly,
            options: [.directory, .closeOnExec]
        )
    else { return }
    fsync(fd.rawValue)
    try? fd.close()
}

extension DownloadError {
    /// A file operation that failed with swift-system's `Errno` (any other error,
    /// which its calls do not throw, reads as `EIO`).
    static func disk(_ operation: String, path: String, _ error: any Error) -> DownloadError {
        disk(operation, path: path, errno: (error as? Errno)?.rawValue ?? EIO)
    }
}
