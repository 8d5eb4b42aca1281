import Foundation
import Library
import PlainText
import WebBasics

/// File and folder names a player's FAT32 or exFAT card keeps as they are.
package enum DeviceName {
    /// Characters neither FAT32 nor exFAT allows in a name.
    static let forbidden: Set<Character> = ["<", ">", ":", "\"", "/", "\\", "|", "?", "*"]
    /// Names Windows and many players reserve, with or without an extension.
    static let reserved = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    /// `text` made safe: no forbidden or control characters (each becomes `_`),
    /// runs of white space (tabs, line breaks) made one space, no leading space, no trailing dot or space, not
    /// a reserved name, and at most `limit` UTF-16 units with `suffix` (an
    /// extension, `.mp3`) kept whole.
    package static func clean(_ text: String, suffix: String = "", limit: Int = 255) -> String {
        var name = ""
        for character in text {
            if character.isWhitespace {
                // Tabs and line breaks too: one space.
                if !name.hasSuffix(" "), !name.isEmpty { name.append(" ") }
            } else if forbidden.contains(character)
                || character.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            {
                name.append("_")
            } else {
                name.append(character)
            }
        }
        let room = max(1, limit - suffix.utf16.count)
        while name.utf16.count > room { name.removeLast() }
        while let last = name.last, last == "." || last == " " { name.removeLast() }
        if name.isEmpty { name = "_" }
        if reserved.contains(name.uppercased()) || reserved.contains(String(name.uppercased().prefix { $0 != "." })) {
            name += "_"
        }
        return name + suffix
    }

    /// `name`, or `name (2).ext`... when a name that differs only in case is
    /// taken (FAT compares without case); the one returned is taken after.
    package static func unique(_ name: String, suffix: String, taken: inout Set<String>) -> String {
        var candidate = clean(name, suffix: suffix)
        var number = 2
        while taken.contains(candidate.lowercased()) {
            candidate = clean(name, suffix: " (\(number))" + suffix)
            number += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }
}

/// What a device wants episodes as (`--to`).
package enum DeviceFormat: String, Sendable, CaseIterable {
    case mp3, opus, m4a

    /// FFmpeg's encoder for it.
    var encoder: String {
        switch self {
        case .mp3: "libmp3lame"
        case .opus: "libopus"
        case .m4a: "aac"
        }
    }
}

/// What `copy` is asked to do.
package struct DeviceCopyRequest: Sendable {
    package var folder: URL
    package var episodes: [EpisodeRef]
    package var format: DeviceFormat?
    /// FFmpeg's `-b:a` when encoding: `64k`.
    package var bitrate: String
    package var dryRun: Bool
    package var deletePlayed: Bool

    package init(
        folder: URL,
        episodes: [EpisodeRef],
        format: DeviceFormat?,
        bitrate: String,
        dryRun: Bool,
        deletePlayed: Bool
    ) {
        self.folder = folder
        self.episodes = episodes
        self.format = format
        self.bitrate = bitrate
        self.dryRun = dryRun
        self.deletePlayed = deletePlayed
    }
}

/// One file `copy` acted on.
package struct DeviceCopyItem: Codable, Sendable, Equatable {
    package enum Action: String, Codable, Sendable {
        case copied, skipped, deleted
        /// Not downloaded: nothing to copy.
        case missing
    }

    /// `P:E`, when the episode is in the library.
    @Nullable package var ref: String?
    /// Under the device folder.
    package var path: String
    package var action: Action
    /// Bytes written (copied), or the file's size (skipped, deleted).
    package var bytes: Int64
}

/// What `copy` did (or, with `--dry-run`, would do).
package struct DeviceCopyReport: Codable, Sendable, Equatable {
    package var items: [DeviceCopyItem] = []
    package var dryRun: Bool
    package var copied: Int { items.count { $0.action == .copied } }
    package var skipped: Int { items.count { $0.action == .skipped } }
    package var deleted: Int { items.count { $0.action == .deleted } }
    /// Bytes written.
    package var bytes: Int64 { items.filter { $0.action == .copied }.reduce(0) { $0 + $1.bytes } }

    private enum CodingKeys: String, CodingKey { case items, dryRun, copied, skipped, deleted, bytes }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(copied, forKey: .copied)
        try container.encode(skipped, forKey: .skipped)
        try container.encode(deleted, forKey: .deleted)
        try container.encode(bytes, forKey: .bytes)
    }

    package init(dryRun: Bool) { self.dryRun = dryRun }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([DeviceCopyItem].self, forKey: .items)
        dryRun = try container.decode(Bool.self, forKey: .dryRun)
    }
}

/// Why `copy` stopped; what it wrote before is whole, and in the manifest.
package struct DeviceCopyProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: String
    package let description: String

    package init(code: String, description: String) {
        self.code = code
        self.description = description
    }

    static func full(_ path: String, wanted: Int64) -> DeviceCopyProblem {
        DeviceCopyProblem(
            code: "device-full",
            description:
                "the device is full: \(SafeText.line(path)) wanted about \(ByteCountText.format(Int(wanted))); "
                + "nothing is left under its name"
        )
    }

    static func notAFolder(_ path: String) -> DeviceCopyProblem {
        DeviceCopyProblem(
            code: "not-a-folder",
            description: "\(SafeText.line(path)) is not a folder (a player's card, mounted)"
        )
    }

    static func badManifest(_ path: String) -> DeviceCopyProblem {
        DeviceCopyProblem(
            code: "bad-manifest",
            description:
                "\(SafeText.line(path)) cannot be read: it is how copy knows what it wrote; move it away to start anew"
        )
    }

    static func ffmpeg(_ path: String, _ message: String) -> DeviceCopyProblem {
        DeviceCopyProblem(
            code: "ffmpeg-failed",
            description: "FFmpeg could not write \(SafeText.line(path)): \(FFmpeg.complaint(message))"
        )
    }

    static let noFFmpeg = DeviceCopyProblem(
        code: "no-ffmpeg",
        description: "copy writes tags (and converts) with FFmpeg, which is not installed ('apt install ffmpeg')"
    )
}

/// What `copy` wrote to a device: `.feedsh-copy.json` at its top, so that a
/// later copy skips what is there and `--delete-played` removes only these.
struct DeviceManifest: Codable, Equatable {
    struct File: Codable, Equatable {
        /// Under the device folder.
        var path: String
        /// The podcast's feed, secrets starred (``URL/redacted(_:)``): a card
        /// is handed around, and a private feed's password or token stays home.
        var feedURL: String
        var guid: String
        var size: Int64
    }

    var version = 1
    var files: [File] = []

    static let name = ".feedsh-copy.json"

    static func read(in folder: URL) throws -> DeviceManifest {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return DeviceManifest() }
        guard let data = try? Data(contentsOf: url), let manifest = try? JSONDecoder().decode(Self.self, from: data)
        else {
            throw DeviceCopyProblem.badManifest(url.path)
        }
        return manifest
    }

    /// Written whole under a temporary name and renamed, after each file.
    func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(self).write(to: folder.appendingPathComponent(Self.name), options: .atomic)
    }
}

extension Services {
    /// Every downloaded library episode, newest first: what `copy` takes by default.
    package func downloadedEpisodes() async throws -> [EpisodeRef] {
        guard let library = try self.library.openIfExists() else { return [] }
        var filter = PlaylistFilter()
        filter.states = [.downloaded]
        return try await library.episodes(matching: filter).map(\.episodeRef)
    }

    /// Copies downloaded episodes to a player's folder or card as
    /// `PODCAST/YYYY-MM-DD TITLE.ext` (names safe on FAT32 and exFAT), tagged
    /// for car stereos (title, album the podcast, artist, date, track, genre
    /// Podcast, the cover when cached), converted by FFmpeg when `format`
    /// differs. Each file is written under a temporary name and renamed, then
    /// the manifest; a file there of the size written before is skipped.
    /// `progress` hears of each file as it is done.
    package func copyToDevice(
        _ request: DeviceCopyRequest,
        progress: @Sendable (DeviceCopyItem) -> Void = { _ in }
    ) async throws -> DeviceCopyReport {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: request.folder.path, isDirectory: &isFolder), isFolder.boolValue
        else { throw DeviceCopyProblem.notAFolder(request.folder.path) }
        guard let ffmpeg = FFmpeg.find() else { throw DeviceCopyProblem.noFFmpeg }
        var manifest = try DeviceManifest.read(in: request.folder)
        var report = DeviceCopyReport(dryRun: request.dryRun)
        let library = try self.library.open()
        let resolved = try await library.resolve(request.episodes)
        // The names in each podcast's folder, without case: the manifest's,
        // and what a listing of the folder found.
        var taken: [String: Set<String>] = [:]
        var listed: Set<String> = []
        for entry in manifest.files {
            let parts = entry.path.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 2 { taken[parts[0].lowercased(), default: []].insert(parts[1].lowercased()) }
        }
        // Played files go first, making room; played episodes are not copied again.
        if request.deletePlayed {
            var podcasts: [String: Int64] = [:]
            for podcast in try await library.subscriptions() {
                if let id = podcast.id { podcasts[URL.redacted(podcast.feedURL)] = id }
            }
            for entry in manifest.files {
                guard let podcast = podcasts[entry.feedURL],
                    let stored = try await library.episode(podcast: podcast, guid: entry.guid), stored.played
                else { continue }
                let file = request.folder.appendingPathComponent(entry.path)
                let size = Self.size(of: file) ?? 0
                if !request.dryRun {
                    try? FileManager.default.removeItem(at: file)
                    manifest.files.removeAll { $0 == entry }
                    try manifest.write(in: request.folder)
                }
                let item = DeviceCopyItem(ref: nil, path: entry.path, action: .deleted, bytes: size)
                report.items.append(item)
                progress(item)
            }
        }
        for episode in resolved where !(request.deletePlayed && episode.stored.played) {
            guard let file = downloads.file(of: episode.stored, in: episode.podcast),
                FileManager.default.fileExists(atPath: file.final.path)
            else {
                let item = DeviceCopyItem(ref: episode.ref, path: "", action: .missing, bytes: 0)
                report.items.append(item)
                progress(item)
                continue
            }
            let source = file.final
            let sourceExt = source.pathExtension.isEmpty ? "mp3" : source.pathExtension.lowercased()
            let ext = request.format?.rawValue ?? sourceExt
            let feed = URL.redacted(episode.podcast.feedURL)
            let known = manifest.files.firstIndex {
                $0.feedURL == feed && $0.guid == episode.stored.guid
                    && $0.path.hasSuffix("." + ext)
            }
            let wanted = Self.size(of: source) ?? 0
            let path: String
            if let known {
                path = manifest.files[known].path
            } else {
                let folder = DeviceName.clean(episode.podcast.title)
                let day = episode.stored.published.map { Self.day($0) + " " } ?? ""
                let name = day + episode.stored.title
                // A file already there under its name, of the episode's size
                // (copied by hand, unconverted), is the episode: left as it is.
                let plain = folder + "/" + DeviceName.clean(name, suffix: "." + ext)
                if ext == sourceExt, Self.size(of: request.folder.appendingPathComponent(plain)) == wanted {
                    let item = DeviceCopyItem(ref: episode.ref, path: plain, action: .skipped, bytes: wanted)
                    report.items.append(item)
                    progress(item)
                    continue
                }
                // Else a name no file there has (listed once a folder), so that
                // nothing of another's is overwritten.
                var names = taken[folder.lowercased()] ?? []
                if listed.insert(folder.lowercased()).inserted {
                    let there = try? FileManager.default.contentsOfDirectory(
                        atPath: request.folder.appendingPathComponent(folder).path
                    )
                    names.formUnion((there ?? []).map { $0.lowercased() })
                }
                let fileName = DeviceName.unique(name, suffix: "." + ext, taken: &names)
                taken[folder.lowercased()] = names
                path = folder + "/" + fileName
            }
            let destination = request.folder.appendingPathComponent(path)
            if let present = Self.size(of: destination), present == known.map({ manifest.files[$0].size }) {
                let item = DeviceCopyItem(ref: episode.ref, path: path, action: .skipped, bytes: present)
                report.items.append(item)
                progress(item)
                continue
            }
            var written = wanted
            if !request.dryRun {
                written = try await writeForDevice(
                    episode,
                    from: source,
                    to: destination,
                    path: path,
                    convert: request.format.map { $0.rawValue != sourceExt ? $0 : nil } ?? nil,
                    bitrate: request.bitrate,
                    wanted: wanted,
                    ffmpeg: ffmpeg
                )
                let entry = DeviceManifest.File(
                    path: path,
                    feedURL: feed,
                    guid: episode.stored.guid,
                    size: written
                )
                if let known { manifest.files[known] = entry } else { manifest.files.append(entry) }
                try manifest.write(in: request.folder)
            }
            let item = DeviceCopyItem(ref: episode.ref, path: path, action: .copied, bytes: written)
            report.items.append(item)
            progress(item)
        }
        return report
    }

    /// FFmpeg writes one episode for the device under a temporary name, then
    /// renames it; returns its size. The cover goes in an MP3 or M4A when the
    /// podcast's artwork is cached.
    private func writeForDevice(
        _ episode: ResolvedLibraryEpisode,
        from source: URL,
        to destination: URL,
        path: String,
        convert: DeviceFormat?,
        bitrate: String,
        wanted: Int64,
        ffmpeg: String
    ) async throws -> Int64 {
        let folder = destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Self.deviceFull(error) ? DeviceCopyProblem.full(path, wanted: wanted) : error
        }
        let partial = folder.appendingPathComponent(".feedsh-part-" + destination.lastPathComponent)
        defer { try? FileManager.default.removeItem(at: partial) }
        let ext = destination.pathExtension.lowercased()
        var arguments = ["-v", "error", "-nostdin", "-y", "-i", source.path]
        let cover = ext == "mp3" || ext == "m4a" ? sources.cachedArtwork(of: episode.podcast) : nil
        if let cover { arguments += ["-i", cover.path] }
        arguments += ["-map", "0:a:0"]
        if cover != nil { arguments += ["-map", "1:v:0", "-c:v", "copy", "-disposition:v", "attached_pic"] }
        if let convert {
            arguments += ["-c:a", convert.encoder, "-b:a", bitrate]
        } else {
            arguments += ["-c:a", "copy"]
        }
        arguments += ["-map_metadata", "-1"]
        let track = episode.stored.episodeNumber ?? episode.episodeNumber
        var tags = [
            "title=" + SafeText.line(episode.stored.title), "album=" + SafeText.line(episode.podcast.title),
            "artist=" + SafeText.line(episode.podcast.author ?? episode.podcast.title), "track=\(track)",
            "genre=Podcast",
        ]
        if let published = episode.stored.published { tags.append("date=" + Self.day(published)) }
        for tag in tags { arguments += ["-metadata", tag] }
        if ext == "mp3" { arguments += ["-id3v2_version", "4"] }
        // The kind by the final name: the temporary one hides it.
        arguments += ["-f", Self.muxer(ext), partial.path]
        if let complaint = try await FFmpeg.run(ffmpeg, arguments) {
            if complaint.contains("No space left on device") { throw DeviceCopyProblem.full(path, wanted: wanted) }
            throw DeviceCopyProblem.ffmpeg(path, complaint)
        }
        do {
            let handle = try FileHandle(forUpdating: partial)
            try handle.synchronize()
            try handle.close()
            if FileManager.default.fileExists(atPath: destination.path) {
                try FileManager.default.removeItem(at: destination)
            }
            try FileManager.default.moveItem(at: partial, to: destination)
        } catch {
            throw Self.deviceFull(error) ? DeviceCopyProblem.full(path, wanted: wanted) : error
        }
        return Self.size(of: destination) ?? 0
    }

    /// A file's size, nil when there is none.
    private static func size(of file: URL) -> Int64? {
        var info = stat()
        guard stat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// FFmpeg's muxer for an extension.
    private static func muxer(_ ext: String) -> String {
        switch ext {
        case "m4a", "mp4", "m4b": "ipod"
        case "opus", "ogg", "oga": ext == "opus" ? "opus" : "ogg"
        default: ext
        }
    }

    private static func deviceFull(_ error: any Error) -> Bool {
        if let error = error as? CocoaError, let underlying = error.underlying as? POSIXError {
            return underlying.code == .ENOSPC
        }
        return (error as? POSIXError)?.code == .ENOSPC
    }

    /// `2026-11-27`, in UTC.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
