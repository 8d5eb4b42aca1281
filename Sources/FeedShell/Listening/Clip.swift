import FeedServices
import Foundation
import Library
import PlainText
import ShellKit
import TerminalKit

extension Command {
    static let clip = Command(
        CommandSpec(
            "clip",
            summary: "cut a span of a downloaded episode into a file of its own",
            details: """
                'clip P:E 12:00 13:00' writes that minute of the downloaded episode to
                {download-dir}/clips/ (or to FILE, whose extension picks the kind:
                another than the episode's is encoded again). The episode can be named
                as N (of the loaded subscription), P:E, fN (from where the words were
                said) or bN: with a bookmark or a hit, FROM may be left out and
                --length 1m says how long ('clip b2 --length 45s'). It is cut without
                encoding again when that lands within 0.1 s of the span, and encoded
                again otherwise; tagged with the title 'EPISODE (12:00–13:00)', the
                podcast as album and a comment with its address and the span.
                --transcript writes the transcript's cues in the span beside it as .srt,
                timed from 0 (fetch it first with 'transcript P:E'). A span outside the
                episode, an episode not downloaded or a file that exists is refused, and
                nothing is written. FFmpeg does the cutting. 'clips' lists what was made.
                """,
            arguments: [clipped.spec, span.spec],
            flags: [length.spec, withTranscript.spec]
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        let selector = try arguments.required(clipped)
        let synopsis = arguments.synopsis
        // The episode, and where a bookmark or a hit says it starts.
        let target: DownloadTarget
        var marked: Double?
        switch selector.scope {
        case .bookmarks:
            guard let found = try await session.bookmarkTargets(selector, synopsis: synopsis).first else {
                throw .usage(arguments.usage())
            }
            (target, marked) = (found.target, found.at)
        case .hits:
            guard let found = try await session.hitTargets(selector, synopsis: synopsis).first else {
                throw .usage(arguments.usage())
            }
            (target, marked) = (found.target, found.at)
        default:
            guard let found = try await session.targets(selector, verb: "clip", synopsis: synopsis).first else {
                throw .usage(arguments.usage())
            }
            target = found
        }
        guard let subject = target.subject else {
            throw .failure(
                ClipProblem(
                    code: "not-in-library",
                    description: "clips are of subscriptions' episodes: 'subscribe' it first"
                )
            )
        }
        let words = try ClipWords.parse(arguments[span] ?? [], marked: marked, length: arguments[length] != nil)
        guard let from = words.from else {
            throw .usage("clip needs FROM (or a bookmark or hit bN, fN that says it)", synopsis: synopsis)
        }
        let request = ClipRequest(
            episode: subject.episode,
            ref: target.name.address,
            source: target.request.file.final,
            from: from,
            to: words.to,
            length: arguments[length],
            output: words.file.map { URL(fileURLWithPath: $0) },
            transcript: arguments[withTranscript]
        )
        return ClipMade(entry: try await coreCall { try await session.services.clip(request) })
    }

    static let clips = Command(
        CommandSpec("clips", summary: "list the clips made ('clip' makes them)", details: "See 'help clip'.")
    ) { _, context throws(ShellError) in
        ClipsListing(clips: try await coreCall { try await context.services.clips() })
    }
}

/// The words after a clip's episode: `FROM TO [FILE]`, or with `--length`
/// `[FROM] [FILE]` (FROM then defaults to the bookmark's or hit's time).
enum ClipWords {
    struct Parsed: Equatable {
        var from: Double?
        var to: Double?
        var file: String?
    }

    static func parse(_ words: [String], marked: Double?, length: Bool) throws(ShellError) -> Parsed {
        func time(_ word: String) -> Double? { ListeningTime.seconds(word) }
        let synopsis = "clip N|P:E|fN|bN FROM TO [FILE] | clip N|P:E|fN|bN [FROM] --length TIME [FILE]"
        if length {
            switch words.count {
            case 0: return Parsed(from: marked)
            case 1: return time(words[0]).map { Parsed(from: $0) } ?? Parsed(from: marked, file: words[0])
            case 2:
                guard let from = time(words[0]) else { throw .usage(.badTime(words[0]), synopsis: synopsis) }
                return Parsed(from: from, file: words[1])
            default: throw .usage("unexpected argument '\(words[2])'", synopsis: synopsis)
            }
        }
        switch words.count {
        case 0, 1:
            throw .usage("clip needs FROM and TO, or --length", synopsis: synopsis)
        case 2, 3:
            guard let from = time(words[0]) else { throw .usage(.badTime(words[0]), synopsis: synopsis) }
            guard let to = time(words[1]) else { throw .usage(.badTime(words[1]), synopsis: synopsis) }
            return Parsed(from: from, to: to, file: words.count == 3 ? words[2] : nil)
        default:
            throw .usage("unexpected argument '\(words[3])'", synopsis: synopsis)
        }
    }
}

extension Command {
    private static let clipped = CommandArgument<Selector>(
        "N|P:E|fN|bN",
        forms: [.subscription, .hits, .bookmarks],
        noun: "episode",
        completion: .items(CompletionDomain.episodes)
    )
    private static let span = CommandArgument<[String]>.words("FROM TO [FILE]", optional: true)
    private static let length = CommandOption<Double>("length", placeholder: "TIME", parse: ListeningTime.seconds) {
        "--length takes a time such as 30s, 1m or 1:30, not '\($0)'"
    }
    private static let withTranscript = CommandFlag("transcript")
}

extension ClipProblem: CommandFailure {
    var failureCode: String { code }
}

/// `clip`: the file made.
struct ClipMade: CommandResult {
    let entry: ClipEntry

    func text(on page: Page) -> String? {
        var line =
            "clipped \(entry.ref ?? "") \(ClipSpan.clock(entry.start))–\(ClipSpan.clock(entry.end)) "
            + "(\(Formatting.duration(.seconds(entry.end - entry.start)))) to \(SafeText.line(entry.path))"
        if entry.reencoded { line += " (encoded again)" }
        if let transcript = entry.transcript { line += "\ntranscript: \(SafeText.line(transcript))" }
        return line
    }

    func encode(to encoder: any Encoder) throws { try entry.encode(to: encoder) }
}

/// `clips`: each clip made, numbered.
struct ClipsListing: CommandResult {
    let clips: [ClipEntry]

    func text(on page: Page) -> String? {
        guard !clips.isEmpty else { return "no clips: 'clip P:E FROM TO' makes one" }
        return page.render(
            Table(
                columns: [
                    .init("#", rightAligned: true), .init("Ref", rightAligned: true), .init("Span"),
                    .init("Title", maxWidth: 40, wraps: true, fit: .init(order: 2, minWidth: 14)),
                    .init("File", keepsEnd: true, fit: .init(order: 1, minWidth: 16)),
                ],
                rows: clips.map { clip in
                    [
                        String(clip.number), clip.ref ?? "-",
                        "\(ClipSpan.clock(clip.start))–\(ClipSpan.clock(clip.end))", clip.title,
                        SafeText.line(clip.path),
                    ]
                }
            )
        )
    }

    func encode(to encoder: any Encoder) throws { try clips.encode(to: encoder) }
}
