import FeedServices
import Foundation
import Library
import PlainText
import Playback
import TerminalKit

extension BookmarkMade {
    func text(on page: Page) -> String? {
        let note = bookmark.note.map { " (\($0))" } ?? ""
        return SafeLine("b\(number): \(bookmark.episodeTitle) at \(Formatting.duration(.seconds(bookmark.at)))\(note)")
            .description
    }

    func encode(to encoder: any Encoder) throws {
        try JSONRender.bookmark(bookmark, number: number, ref: nil, words: nil).encode(to: encoder)
    }
}

extension BookmarkRemoved {
    func text(on page: Page) -> String? {
        SafeLine("removed b\(number) (\(bookmark.episodeTitle) at \(Formatting.duration(.seconds(bookmark.at))))")
            .description + "; \(Formatting.count(left, "bookmark")) left"
    }

    func encode(to encoder: any Encoder) throws {
        try Removal(removed: number, left: left).encode(to: encoder)
    }
}

extension BookmarkListing {
    func text(on page: Page) -> String? {
        guard !entries.isEmpty else {
            return "no bookmarks: 'b' in mpv while playing, or 'bookmark P:E TIME [NOTE]', makes one"
        }
        return page.render(
            Table(
                columns: [
                    .init("#", rightAligned: true), .init("Ref", rightAligned: true),
                    .init("Podcast", maxWidth: 24, wraps: true, fit: .init(order: 2, minWidth: 8)),
                    .init("Title", maxWidth: 36, wraps: true, fit: .init(order: 3, minWidth: 14)),
                    .init("At", rightAligned: true),
                    // The note gives way first, to 20 columns, and wraps under itself.
                    .init("Note / words", wraps: true, fit: .init(order: 1, minWidth: 20)),
                ],
                rows: entries.map { entry in
                    let mark = entry.bookmark
                    let said = entry.words.map { "“\($0)”" }
                    let note = [mark.note, said].compactMap { $0 }.joined(separator: " ")
                    return [
                        "b\(entry.number)", entry.ref ?? "-", SafeText.line(mark.podcastTitle),
                        SafeText.line(mark.episodeTitle), Formatting.duration(.seconds(mark.at)), SafeText.line(note),
                    ]
                }
            )
        )
    }

    func encode(to encoder: any Encoder) throws {
        try JSONValue.array(
            entries.map { JSONRender.bookmark($0.bookmark, number: $0.number, ref: $0.ref, words: $0.words) }
        ).encode(to: encoder)
    }
}

extension SleepShown {
    func text(on page: Page) -> String? {
        let what = SafeText.line(playing)
        guard let timer else { return changed ? "sleep timer off for \(what)" : "no sleep timer: \(what) plays on" }
        return "\(what): " + Render.sleepTimer(timer, remaining: remaining)
    }

    func encode(to encoder: any Encoder) throws {
        try SleepJSON(playing: playing, sleep: timer?.word, remaining: remaining).encode(to: encoder)
    }
}

extension StatsShown {
    func text(on page: Page) -> String? {
        let totals = stats.totals
        guard totals.plays > 0 else {
            return "nothing listened to" + (since.map { " since \(Formatting.date($0))" } ?? "") + " yet"
        }
        var lines = [
            "listened \(Render.hours(totals.listened)) in \(Formatting.count(totals.plays, "play"))"
                + (since.map { " since \(Formatting.date($0))" } ?? ""),
            "finished \(Formatting.count(totals.finished, "episode"))",
            "saved \(Render.hours(totals.savedBySpeed)) by speed and \(Render.hours(totals.savedBySilence)) "
                + "by skipping silence",
        ]
        if !stats.topPodcasts.isEmpty {
            lines.append(
                "top: "
                    + stats.topPodcasts.map { "\(SafeText.line($0.name)) \(Render.hours($0.totals.listened))" }
                    .joined(separator: ", ")
            )
        }
        var text = lines.joined(separator: "\n")
        if !stats.groups.isEmpty {
            text +=
                "\n\n"
                + page.render(
                    Table(
                        columns: [
                            .init("", maxWidth: 36), .init("Listened", rightAligned: true),
                            .init("Plays", rightAligned: true), .init("Finished", rightAligned: true),
                            .init("Saved", rightAligned: true),
                        ],
                        rows: stats.groups.map { group in
                            [
                                SafeText.line(group.name), Render.hours(group.totals.listened),
                                String(group.totals.plays), String(group.totals.finished),
                                Render.hours(group.totals.savedBySpeed + group.totals.savedBySilence),
                            ]
                        }
                    )
                )
        }
        return text
    }

    /// `stats --json`: the value mcp's `stats` gives too.
    func encode(to encoder: any Encoder) throws {
        try JSONValueEncoder().encode(StatsEntry(stats, since: since.map { Formatting.date($0) })).encode(to: encoder)
    }
}

extension HistoryExported {
    func text(on page: Page) -> String? {
        SafeLine("exported \(Formatting.count(rows, "row")) of listening history to \(path)").description
    }
}

/// The listening history as `export history` writes it: every play, bookmark and
/// finished episode, with the feed URL and GUID other tools match episodes by.
struct HistoryExport: CommandResult {
    enum Format: String, CaseIterable, Sendable {
        case csv
        case json
    }

    let format: Format
    var plays: [PlaybackRecord] = []
    var bookmarks: [Bookmark] = []
    var finished: [(identity: EpisodeIdentity, when: Date?)] = []

    var rowCount: Int { plays.count + bookmarks.count + finished.count }

    /// The file's text.
    var document: String {
        switch format {
        case .json:
            return json.text + "\n"
        case .csv:
            return csv
        }
    }

    func text(on page: Page) -> String? { document }

    func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

    private static let columns = [
        "kind", "date", "podcast", "episode", "feedURL", "guid", "from", "to", "heard", "wall", "speed",
        "silenceSkipped", "finished", "note",
    ]

    /// RFC 4180: a header, a row each, fields quoted when they hold a comma, quote
    /// or line break. Each field is made safe first (``csvField(_:)``).
    private var csv: String {
        func field(_ text: String) -> String {
            let text = Self.csvField(text)
            return text.contains(where: { $0 == "," || $0 == "\"" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        var rows = [Self.columns]
        for play in plays {
            rows.append([
                "play", Self.timestamp(play.started), play.podcastTitle, play.episodeTitle, play.feedURL, play.guid,
                number(play.fromSeconds), number(play.toSeconds), number(play.mediaSeconds), number(play.wallSeconds),
                Setting.decimal(play.speed), number(play.silenceSkipped), play.finished ? "1" : "0", "",
            ])
        }
        for mark in bookmarks {
            rows.append([
                "bookmark", Self.timestamp(mark.created), mark.podcastTitle, mark.episodeTitle, mark.feedURL, mark.guid,
                number(mark.at), "", "", "", "", "", "", mark.note ?? "",
            ])
        }
        for (identity, when) in finished {
            rows.append([
                "finished", when.map(Self.timestamp) ?? "", identity.podcastTitle, identity.episodeTitle,
                identity.feedURL, identity.guid, "", "", "", "", "", "", "1", "",
            ])
        }
        return rows.map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    private var json: JSONValue {
        JSONValue(
            encoding: HistoryJSON(
                plays: plays.map { play in
                    HistoryJSON.Play(
                        date: Self.timestamp(play.started),
                        podcast: play.podcastTitle,
                        episode: play.episodeTitle,
                        feedURL: play.feedURL,
                        guid: play.guid,
                        from: play.fromSeconds,
                        to: play.toSeconds,
                        heard: play.mediaSeconds,
                        wall: play.wallSeconds,
                        speed: play.speed,
                        silenceSkipped: play.silenceSkipped,
                        finished: play.finished
                    )
                },
                bookmarks: bookmarks.map { mark in
                    HistoryJSON.Mark(
                        date: Self.timestamp(mark.created),
                        podcast: mark.podcastTitle,
                        episode: mark.episodeTitle,
                        feedURL: mark.feedURL,
                        guid: mark.guid,
                        at: mark.at,
                        note: mark.note
                    )
                },
                finished: finished.map { identity, when in
                    HistoryJSON.Finished(
                        date: when.map(Self.timestamp),
                        podcast: identity.podcastTitle,
                        episode: identity.episodeTitle,
                        feedURL: identity.feedURL,
                        guid: identity.guid
                    )
                }
            )
        )
    }

    /// A field as the CSV holds it: on one line with no terminal escapes or
    /// controls (titles, GUIDs and notes come from feeds and other devices, and
    /// the CSV may go to a terminal), and, when it begins with `=`, `+`, `-` or
    /// `@`, after a `'`, so that a spreadsheet shows it instead of running it as
    /// a formula. feedsh writes no number that begins with one of them.
    static func csvField(_ text: String) -> String {
        let line = SafeText.line(text)
        guard let first = line.first, "=+-@".contains(first) else { return line }
        return "'" + line
    }

    /// ISO 8601 in UTC.
    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

extension Render {
    /// `2h 05m`, `12m`, `45s`: a span of listening.
    static func hours(_ seconds: Double) -> String {
        SpanText.listened(seconds)
    }
}

extension JSONRender {
    /// A bookmark, as the web page's `/api/bookmarks` gives it too
    /// (``FeedServices/BookmarkEntry``).
    static func bookmark(_ mark: Bookmark, number: Int, ref: String?, words: String?) -> JSONValue {
        JSONValue(encoding: BookmarkEntry(mark, number: number, ref: ref, words: words))
    }
}

/// `bookmark rm --json`: the bookmark's number and how many are left.
private struct Removal: Encodable {
    var removed: Int
    var left: Int
}

/// `sleep --json`.
private struct SleepJSON: Encodable {
    var playing: String
    @Nullable var sleep: String?
    /// Seconds; left out when no timer runs.
    var remaining: Double?
}

/// `history export --format json`: every play, bookmark and finished episode,
/// each with the episode's identity across devices (feed and GUID).
private struct HistoryJSON: Encodable {
    struct Play: Encodable {
        var date: String
        var podcast: String
        var episode: String
        var feedURL: String
        var guid: String
        var from: Double
        var to: Double
        var heard: Double
        var wall: Double
        var speed: Double
        var silenceSkipped: Double
        var finished: Bool
    }

    struct Mark: Encodable {
        var date: String
        var podcast: String
        var episode: String
        var feedURL: String
        var guid: String
        var at: Double
        @Nullable var note: String?
    }

    struct Finished: Encodable {
        @Nullable var date: String?
        var podcast: String
        var episode: String
        var feedURL: String
        var guid: String
    }

    var plays: [Play]
    var bookmarks: [Mark]
    var finished: [Finished]
}
