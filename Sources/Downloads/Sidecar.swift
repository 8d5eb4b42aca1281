import Foundation

/// The metadata beside a `.part` file: enough to resume it in a later run.
///
/// `confirmedBytes` counts bytes known to be on disk (synced): after a crash the
/// `.part` file is cut back to it, so nothing unconfirmed is ever trusted.
struct Sidecar: Codable, Equatable, Sendable {
    var url: String
    var etag: String?
    var lastModified: String?
    var expectedLength: Int64?
    var confirmedBytes: Int64
    /// The response's `Content-Type` (absent in sidecars of older versions).
    var contentType: String?

    /// The validator for `If-Range`: a strong ETag, else Last-Modified.
    var ifRangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// The sidecar at `file`; nil when it is absent, unreadable, or not a regular
    /// file (a link planted there is not trusted).
    static func load(from file: URL) -> Sidecar? {
        var info = stat()
        guard lstat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            let data = try? Data(contentsOf: file)
        else { return nil }
        return try? JSONDecoder().decode(Sidecar.self, from: data)
    }

    /// Writes to a temporary file, syncs it and renames it over the old one, so the
    /// sidecar on disk is always a whole one.
    func save(to file: URL) throws(DownloadError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { fatalError("a Sidecar always encodes: \(error)") }
        let temporary = file.path + ".tmp"
        // O_NOFOLLOW: a link planted at the temporary name is refused, not written
        // through; the rename below replaces a link at the sidecar's name itself.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw errno == ELOOP ? .unsafePath(temporary) : .disk("create", path: temporary, errno: errno)
        }
        defer { close(fd) }
        // Data.withUnsafeBytes rethrows untyped errors: carry ours out by value.
        let failure: DownloadError? = data.withUnsafeBytes { buffer in
            do throws(DownloadError) {
                try writeAll(fd, buffer, path: temporary)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        guard fsync(fd) == 0 else { throw .disk("sync", path: temporary, errno: errno) }
        guard rename(temporary, file.path) == 0 else { throw .disk("rename", path: temporary, errno: errno) }
    }
}

/// Writes every byte, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(DownloadError) {
    var offset = 0
    while offset < buffer.count {
        let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            throw .disk("write", path: path, errno: errno)
        }
        offset += written
    }
}
