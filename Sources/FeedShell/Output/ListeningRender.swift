import FeedKit
import FeedServices
import Library
import PlainText
import TerminalKit

extension Render {
    /// A transcript as a person reads it: a paragraph a line (wrapped under
    /// itself), `[12:34]` before it and the speaker's name when the speaker
    /// changes. A paragraph holds up to 20 s of cues, so a line of it that
    /// starts in a later cue shows that cue's time in the margin; unwrapped
    /// (no terminal), a paragraph breaks where a cue starts 5 s or more after
    /// the time last shown.
    static func transcript(_ transcript: StoredTranscript, title: String, width: Int?) -> String {
        var lines = ["\(SafeText.line(title)): transcript (\(transcript.format.name))"]
        if transcript.paragraphs.isEmpty { lines.append("(it has no text)") }
        var speaker: String?
        for (index, paragraph) in transcript.paragraphs.enumerated() {
            var head = paragraph.start.map(TranscriptLayout.label) ?? ""
            if let name = paragraph.speaker, name != speaker { head += SafeText.line(name) + ": " }
            speaker = paragraph.speaker
            let body = SafeText.line(paragraph.text)
            // Cue offsets index the kept text; they hold while sanitizing kept it.
            let timed = paragraph.start != nil && body == paragraph.text
            guard let width, width > 20 else {
                lines += TranscriptLayout.unwrapped(head: head, body: body) { offset in
                    timed ? transcript.time(ofParagraph: index, atOffset: offset) : nil
                }
                continue
            }
            lines += TranscriptLayout.wrapped(head: head, body: body, width: width, timed: paragraph.start != nil) {
                offset in timed ? transcript.time(ofParagraph: index, atOffset: offset) : nil
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `chapters` when the episode lists none.
    static func noChapters(episode title: String) -> SafeLine {
        "\(title) lists no chapters"
    }

    /// Each chapter's number, start and title, with its web page when it has one.
    static func chapters(_ chapters: [Chapter]) -> Table {
        Table(
            columns: [.init("#", rightAligned: true), .init("Start", rightAligned: true), .init("Title")]
                + (chapters.contains { $0.url != nil } ? [.init("Link")] : []),
            rows: chapters.enumerated().map { index, chapter in
                [String(index + 1), Formatting.duration(.seconds(chapter.start)), SafeText.line(chapter.title)]
                    + (chapters.contains { $0.url != nil }
                        ? [chapter.url.map { SafeText.line($0.absoluteString) } ?? ""] : [])
            }
        )
    }

    /// The play queue: position, the episode's `P:E`, podcast and title.
    static func queue(_ entries: [QueueEntry]) -> Table {
        Table(
            columns: [
                .init("#", rightAligned: true), .init("Ref", rightAligned: true), .init("Podcast", maxWidth: 30),
                .init("Title"),
            ],
            rows: entries.map { entry in
                [String(entry.position), entry.ref, SafeText.line(entry.podcast), SafeText.line(entry.title)]
            }
        )
    }
}

extension Render {
    /// `set`: each setting's value and where it comes from, then the
    /// subscriptions with rules of their own.
    static func settings(
        _ settings: [EffectiveSetting],
        podcasts: [StoredPodcast],
        own: [Int64: [Setting: String]],
        width: Int?,
        color: Bool
    ) -> String {
        let rows = settings.map { [$0.setting.name, SafeText.line($0.value ?? $0.setting.defaultText), $0.source] }
        // A narrow terminal wraps the values between words, never inside one
        // (up to 16 columns): the source wraps instead.
        let longestWord = rows.flatMap { $0[1].split(separator: " ") }.map { TextLayout.width(String($0)) }.max() ?? 0
        var text = Table(
            columns: [
                Table.Column("Setting"),
                Table.Column("Value", maxWidth: 50, wraps: true, fit: .init(order: 1, minWidth: min(longestWord, 16))),
                Table.Column("From", wraps: true),
            ],
            rows: rows
        ).render(width: width, bold: color)
        let lines = podcasts.map { podcast in
            var rules: [String] = []
            if podcast.autodownload { rules.append("autodownload on") }
            if let keep = podcast.keep { rules.append("keep \(keep)") }
            if let speed = podcast.speed { rules.append("speed \(Setting.decimal(speed))") }
            for (setting, value) in (own[podcast.id ?? -1] ?? [:]).sorted(by: { $0.key.name < $1.key.name }) {
                rules.append("\(setting.name) \(SafeText.line(value))")
            }
            return "\(podcast.number) \(SafeText.line(podcast.title)): \(rules.joined(separator: ", "))"
        }
        if !lines.isEmpty { text += "\nsubscriptions:\n" + lines.joined(separator: "\n") }
        return text
    }
}

extension JSONRender {
    /// `set --json`: the settings in effect and the subscriptions' own rules.
    static func settings(
        _ settings: [EffectiveSetting],
        podcasts: [StoredPodcast],
        own: [Int64: [Setting: String]]
    ) -> JSONValue {
        JSONValue(
            encoding: SettingsJSON(
                settings: settings.map {
                    .init(name: $0.setting.name, value: $0.value ?? $0.setting.defaultText, source: $0.source)
                },
                podcasts: podcasts.map { podcast in
                    SettingsJSON.Podcast(
                        number: podcast.number,
                        title: podcast.title,
                        autodownload: podcast.autodownload,
                        keep: podcast.keep,
                        speed: podcast.speed,
                        settings: (own[podcast.id ?? -1] ?? [:]).sorted { $0.key.name < $1.key.name }.map {
                            .init(name: $0.key.name, value: $0.value, source: "podcast")
                        }
                    )
                }
            )
        )
    }

    private struct SettingsJSON: Encodable {
        struct Value: Encodable {
            var name: String
            @Nullable var value: String?
            /// `default`, `config`, `set`, `podcast`...
            var source: String
        }

        struct Podcast: Encodable {
            var number: Int
            var title: String
            var autodownload: Bool
            /// Left out when the podcast keeps every download.
            var keep: Int?
            @Nullable var speed: Double?
            var settings: [Value]
        }

        var settings: [Value]
        var podcasts: [Podcast]
    }

    /// `transcript --json`: where it came from, its format and its paragraphs
    /// (as mcp's `transcript` gives them).
    static func transcript(_ transcript: StoredTranscript, title: String) -> JSONValue {
        JSONValue(
            encoding: TranscriptJSON(
                title: title,
                url: transcript.url.absoluteString,
                format: transcript.format.rawValue,
                paragraphs: transcript.paragraphs.map(TranscriptPage.Paragraph.init)
            )
        )
    }

    private struct TranscriptJSON: Encodable {
        var title: String
        var url: String
        var format: String
        var paragraphs: [TranscriptPage.Paragraph]
    }

    /// `chapters --json`: number, start in seconds, title and web page, as the
    /// web page's `/api/episodes/P:E/chapters` gives them.
    static func chapters(_ chapters: [Chapter]) -> JSONValue {
        JSONValue(encoding: chapters.enumerated().map { ChapterEntry(number: $0.offset + 1, $0.element) })
    }

    /// `queue --json`: the value mcp's `queue` gives too.
    static func queue(_ entries: [QueueEntry]) -> JSONValue {
        JSONValue(encoding: entries.map(QueueItemEntry.init))
    }
}
