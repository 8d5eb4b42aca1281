import Foundation
import SystemPackage

/// Where downloads live on disk, per the contract in DESIGN.md:
/// `{root}/{podcastID}/{episodeID}.{ext}` when complete; while incomplete the bytes
/// are in `{that}.part` and the metadata in `{that}.part.json`.
///
/// Apple's IDs are positive. Podcasts and episodes known only from their feed carry
/// negative IDs derived from the feed URL and the GUID (see ``feedKey(_:)``): their
/// names are `feed-{hex}`, stable and apart from Apple's.
public struct DownloadLayout: Sendable, Equatable {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// The three paths of one download.
    public struct File: Sendable, Equatable {
        /// The complete file; it exists only once the download is verified.
        public let final: URL
        /// The bytes received so far.
        public var part: URL { URL(fileURLWithPath: final.path + ".part") }
        /// The metadata beside the bytes (URL, validators, confirmed length).
        public var sidecar: URL { URL(fileURLWithPath: final.path + ".part.json") }

        /// The files of a download whose complete file will be `final`.
        public init(final: URL) {
            self.final = final
        }
    }

    public func file(podcastID: Int64, episodeID: Int64, extension ext: String) -> File {
        File(
            final: root.appendingPathComponent(Self.name(podcastID), isDirectory: true)
                .appendingPathComponent("\(Self.name(episodeID)).\(ext)")
        )
    }

    /// A file or folder name for an ID: Apple's as it is, a feed key as `feed-{hex}`.
    /// The file name (without extension) that `id` is kept under.
    public static func name(_ id: Int64) -> String {
        id >= 0 ? String(id) : "feed-" + String(UInt64(bitPattern: ~id), radix: 16)
    }

    /// The names (without extension) of the complete files in podcast
    /// `podcastID`'s folder: regular files only, no `.part` or sidecar.
    public func completedNames(podcastID: Int64) -> Set<String> {
        fileNames(podcastID: podcastID) { !$0.hasSuffix(".part") && !$0.hasSuffix(".part.json") }
    }

    /// The names (without extension) of the partial downloads in podcast
    /// `podcastID`'s folder: `.part` files that are regular files.
    public func partialNames(podcastID: Int64) -> Set<String> {
        fileNames(podcastID: podcastID) { $0.hasSuffix(".part") }
    }

    /// Whether any podcast's folder holds a `.part` file: one listing of each
    /// folder, with no library, so that a start without partial downloads need
    /// not open it to say there are none.
    public func hasPartFiles() -> Bool {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: root.path) else { return false }
        return folders.contains { folder in
            guard !folder.hasPrefix("."),
                let names = try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            else { return false }
            return names.contains { $0.hasSuffix(".part") && !$0.hasPrefix(".") }
        }
    }

    /// The names of a podcast's `.part` files that no process holds: downloads
    /// left paused, not those this engine, the background feedsh or another shell
    /// is running.
    public func pausedNames(podcastID: Int64) -> Set<String> {
        let folder = root.appendingPathComponent(Self.name(podcastID), isDirectory: true).path
        return fileNames(podcastID: podcastID) { name in
            name.hasSuffix(".part") && PartFile.lockHolder(of: folder + "/" + name) == nil
        }
    }

    /// The names up to their first dot of the regular files in a podcast's folder
    /// whose full names `keep` takes (hidden ones never).
    private func fileNames(podcastID: Int64, _ keep: (String) -> Bool) -> Set<String> {
        let folder = root.appendingPathComponent(Self.name(podcastID), isDirectory: true).path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var found: Set<String> = []
        for name in names where keep(name) && !name.hasPrefix(".") {
            guard let dot = name.firstIndex(of: "."), isRegularFile(folder + "/" + name) else { continue }
            found.insert(String(name[..<dot]))
        }
        return found
    }

    /// A stable negative ID for something known only by text (a feed URL, a GUID):
    /// FNV-1a, 63 bits, negated.
    public static func feedKey(_ text: String) -> Int64 {
        ~Int64(bitPattern: fnv1a64(text) & 0x7FFF_FFFF_FFFF_FFFF)
    }

    /// What is on disk for a download.
    public enum Status: Sendable, Equatable {
        case absent
        /// Complete, with its size in bytes.
        case downloaded(bytes: Int64)
        /// Incomplete: a `.part` file holding this many confirmed bytes of `total`
        /// (when the sidecar knows it).
        case partial(bytes: Int64, total: Int64?)
    }

    /// What is on disk, from `lstat`: a symbolic link at either name counts as
    /// nothing there (it is never followed, nor taken for a finished download).
    ///
    /// `lstat` on the path as it is: `FilePath`'s normalizing of every path made
    /// `cancel all` of 5,000 downloads spend seconds (in a debug build) here.
    public func status(of file: File) -> Status {
        let entry = { (url: URL) -> (regular: Bool, size: Int64)? in
            var info = stat()
            guard lstat(url.path, &info) == 0 else { return nil }
            return ((info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size))
        }
        if let info = entry(file.final), info.regular {
            return .downloaded(bytes: info.size)
        }
        if let info = entry(file.part), info.regular {
            let size = info.size
            let sidecar = Sidecar.load(from: file.sidecar)
            let confirmed = sidecar.map { min($0.confirmedBytes, size) } ?? size
            return .partial(bytes: confirmed, total: sidecar?.expectedLength)
        }
        return .absent
    }
}

/// FNV-1a, 64 bits: a stable, dependency-free hash for file names and cache keys
/// (not security).
public func fnv1a64(_ text: String) -> UInt64 {
    // Its bytes read where they are (a native string's always are): through the
    // UTF-8 view's iterator a byte took ~40 instructions, and `podcast P` hashes
    // every episode's GUID.
    var text = text
    return text.withUTF8 { bytes in
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// `text`'s ``fnv1a64(_:)`` as 16 hex digits: the key a cache files a URL under.
public func fnv1a64Key(_ text: String) -> String {
    let hex = String(fnv1a64(text), radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
