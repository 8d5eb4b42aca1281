import FeedKit
import FeedServices
import Library
import PlainText
import TerminalKit

extension Render {
    /// A transcript as a person reads it: a paragraph a line (wrapped under
    /// itself), `[12:34]` before it and the speaker's name when the speaker changes.
    static func transcript(_ transcript: StoredTranscript, title: String, width: Int?) -> String {
        var lines = ["\(SafeText.line(title)): transcript (\(transcript.format.name))"]
        if transcript.paragraphs.isEmpty { lines.append("(it has no text)") }
        var speaker: String?
        for paragraph in transcript.paragraphs {
            var head = paragraph.start.map { "[" + Formatting.duration(.seconds($0)) + "] " } ?? ""
            if let name = paragraph.speaker, name != speaker { head += SafeText.line(name) + ": " }
            speaker = paragraph.speaker
            let text = head + SafeText.line(paragraph.text)
            guard let width, width > 20 else {
                lines.append(text)
                continue
            }
            // Continuations line up under the text, after the time.
            let indent = paragraph.start == nil ? 0 : min(head.prefix { $0 != "]" }.count + 2, width / 3)
            let wrapped = TextLayout.wrap(text, toWidth: width).split(
                separator: "\n",
                omittingEmptySubsequences: false
            )
            lines.append(String(wrapped[0]))
            let rest = wrapped.dropFirst().joined(separator: " ")
            if !rest.isEmpty {
                let pad = String(repeating: " ", count: indent)
                lines += TextLayout.wrap(rest, toWidth: width - indent).split(separator: "\n").map { pad + $0 }
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
        var text = Table(
            columns: [Table.Column("Setting"), Table.Column("Value", maxWidth: 50), Table.Column("From")],
            rows: settings.map { [$0.setting.name, SafeText.line($0.value ?? $0.setting.defaultText), $0.source] }
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
        .object([
            "settings": .array(
                settings.map {
                    .object([
                        "name": .string($0.setting.name), "value": .string($0.value ?? $0.setting.defaultText),
                        "source": .string($0.source),
                    ])
                }
            ),
            "podcasts": .array(
                podcasts.map { podcast in
                    .object([
                        "number": .int(podcast.number), "title": .string(podcast.title),
                        "autodownload": .bool(podcast.autodownload), "keep": podcast.keep.map { .int($0) },
                        "speed": podcast.speed.map { .double($0) } ?? .null,
                        "settings": .array(
                            (own[podcast.id ?? -1] ?? [:]).sorted { $0.key.name < $1.key.name }.map {
                                .object([
                                    "name": .string($0.key.name), "value": .string($0.value),
                                    "source": .string("podcast"),
                                ])
                            }
                        ),
                    ])
                }
            ),
        ])
    }

    /// `transcript --json`: where it came from, its format and its paragraphs.
    static func transcript(_ transcript: StoredTranscript, title: String) -> JSONValue {
        .object([
            "title": .string(title), "url": .string(transcript.url.absoluteString),
            "format": .string(transcript.format.rawValue),
            "paragraphs": .array(
                transcript.paragraphs.map { paragraph in
                    .object([
                        "start": paragraph.start.map { .double($0) } ?? .null,
                        "speaker": .string(paragraph.speaker), "text": .string(paragraph.text),
                    ])
                }
            ),
        ])
    }

    /// `chapters --json`: number, start in seconds, title and web page.
    static func chapters(_ chapters: [Chapter]) -> JSONValue {
        .array(
            chapters.enumerated().map { index, chapter in
                .object([
                    "number": .int(Int64(index + 1)), "start": .double(chapter.start),
                    "title": .string(chapter.title), "url": .string(chapter.url?.absoluteString),
                ])
            }
        )
    }

    /// `queue --json`: the entries in order.
    /// `queue --json`: the value mcp's `queue` gives too.
    static func queue(_ entries: [QueueEntry]) -> JSONValue {
        (try? JSONValueEncoder().encode(entries.map(QueueItemEntry.init))) ?? .array([])
    }
}
