import Foundation
import SystemPackage

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
        guard isRegularFile(file.path), let data = try? Data(contentsOf: file)
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
        // noFollow: a link planted at the temporary name is refused, not written
        // through; the rename below replaces a link at the sidecar's name itself.
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                FilePath(temporary),
                .writeOnly,
                options: [.create, .truncate, .noFollow, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead]
            )
        } catch {
            throw error as? Errno == .tooManySymbolicLinkLevels
                ? .unsafePath(temporary) : .disk("create", path: temporary, error)
        }
        defer { try? fd.close() }
        do { try fd.writeAll(data) } catch { throw .disk("write", path: temporary, error) }
        guard fsync(fd.rawValue) == 0 else { throw .disk("sync", path: temporary, errno: errno) }
        guard rename(temporary, file.path) == 0 else { throw .disk("rename", path: temporary, errno: errno) }
    }
}
