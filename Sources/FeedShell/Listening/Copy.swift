import FeedServices
import Foundation
import Library
import PlainText
import ShellKit
import TerminalKit

extension Command {
    static let copy = Command(
        CommandSpec(
            "copy",
            summary: "copy downloaded episodes to a player's folder or SD card, tagged",
            details: """
                'copy /media/card' copies every downloaded episode; after the folder,
                P:E, P:2-4, P:all, new, 'playlist NAME' or downloaded choose which.
                Files go to DIR/PODCAST/YYYY-MM-DD TITLE.ext, named so that FAT32 and
                exFAT keep them (no <>:"/\\|?* or control characters, no trailing dot or
                space, no reserved names such as CON, at most 255 characters, unique
                without case). FFmpeg writes the tags a car stereo reads (ID3v2.4 for
                MP3: title, album the podcast, artist, date, track the feed's episode
                number else E of P:E, genre Podcast, the cover when its artwork is
                cached; Vorbis comments for Opus; MP4 atoms for M4A) and converts
                when --to mp3, opus or m4a differs from the file (--bitrate, 64k by
                default). Each file is written under a temporary name and renamed, so a
                card that fills up or is pulled out leaves no half file under a final
                name; the error says which file and how much it wanted. A file already
                there of the size written is skipped. --delete-played removes the files
                copy wrote (a manifest, .feedsh-copy.json, on the device) whose episodes
                are played now; --dry-run says what would be done and does nothing.
                """,
            arguments: [folder.spec, which.spec],
            flags: [format.spec, bitrate.spec, dryRun.spec, deletePlayed.spec]
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        let path = try arguments.required(folder)
        let words = arguments[which] ?? []
        let episodes: [EpisodeRef]
        if words.isEmpty || words == ["downloaded"] {
            episodes = try await coreCall { try await session.services.downloadedEpisodes() }
        } else {
            let selector: Selector
            if words.count == 2, words[0].lowercased() == "playlist" {
                selector = .playlist(words[1])
            } else if words.count == 1 {
                switch Selector.parse(words[0], forms: [.several, .subscription, .new], noun: "episode") {
                case .success(let parsed): selector = parsed
                case .failure(let problem):
                    throw .usage(.selector(problem, noun: "episode", count: nil), synopsis: arguments.synopsis)
                }
            } else {
                throw .usage(
                    "copy takes P:E, P:2-4, P:all, new, 'playlist NAME' or downloaded after the folder",
                    synopsis: arguments.synopsis
                )
            }
            let targets = try await session.targets(selector, verb: "copy", synopsis: arguments.synopsis)
            episodes = targets.compactMap { $0.subject?.episode }
        }
        let request = DeviceCopyRequest(
            folder: URL(fileURLWithPath: path),
            episodes: episodes,
            format: arguments[format].flatMap { DeviceFormat(rawValue: $0.lowercased()) },
            bitrate: arguments[bitrate] ?? "64k",
            dryRun: arguments[dryRun],
            deletePlayed: arguments[deletePlayed]
        )
        let report = try await coreCall {
            try await session.services.copyToDevice(request) { item in
                context.report(.copiedToDevice(item, dryRun: request.dryRun))
            }
        }
        return DeviceCopied(report: report)
    }
}

extension Command {
    private static let folder = CommandArgument<String>.path("DIR")
    private static let which = CommandArgument<[String]>.words("P:E|new|playlist NAME|downloaded", optional: true)
    private static let format = CommandOption<String>("to", choices: DeviceFormat.allCases.map(\.rawValue))
    private static let bitrate = CommandOption<String>(
        "bitrate",
        placeholder: "RATE",
        parse: { text in
            let lower = text.lowercased()
            let digits = lower.hasSuffix("k") ? String(lower.dropLast()) : lower
            return Int(digits).map { (8...512).contains($0) } == true ? digits + "k" : nil
        }
    ) { "--bitrate takes 8k to 512k (64k), not '\($0)'" }
    private static let dryRun = CommandFlag("dry-run")
    private static let deletePlayed = CommandFlag("delete-played")
}

extension DeviceCopyProblem: CommandFailure {
    var failureCode: String { code }
}

/// What `copy` did: a summary (each file was said as it went).
struct DeviceCopied: CommandResult {
    let report: DeviceCopyReport

    func text(on page: Page) -> String? {
        let would = report.dryRun ? "would have " : ""
        return "\(would)copied \(report.copied), skipped \(report.skipped), deleted \(report.deleted) "
            + "(\(ByteCountText.format(Int(report.bytes))) written)"
    }

    func encode(to encoder: any Encoder) throws { try report.encode(to: encoder) }
}

extension Render {
    /// One file of `copy`, as it is done: `copied 1:1 Podcast/2026-11-02 Title.mp3 (4.1 MB)`.
    static func copiedToDevice(_ item: DeviceCopyItem, dryRun: Bool) -> String {
        let ref = item.ref.map { $0 + " " } ?? ""
        let size = " (\(ByteCountText.format(Int(item.bytes))))"
        let path = SafeText.line(item.path)
        switch item.action {
        case .copied: return (dryRun ? "would copy " : "copied ") + ref + path + size
        case .skipped: return "skipped \(ref)\(path): there already"
        case .deleted: return (dryRun ? "would delete " : "deleted ") + path + " (played)"
        case .missing: return "skipped \(ref)(not downloaded: 'get \(item.ref ?? "")' first)"
        }
    }
}
