import Downloads
import FeedKit
import FeedServices
import Foundation
import PlainText
import TerminalKit

/// Turns models into the text the shell prints. Pure functions of their inputs, so
/// that tables can be tested at any width; every string from the network goes
/// through ``SafeText`` here.
package enum Render {
    /// Two lines: title and artist; genres and how many episodes were loaded.
    static func podcastHeader(_ podcast: Podcast, width: Int?) -> String {
        var first = SafeText.line(podcast.title)
        if let artist = podcast.artist, !artist.isEmpty { first += " · " + SafeText.line(artist) }
        var details: [String] = []
        if !podcast.genres.isEmpty { details.append(SafeText.line(podcast.genres.joined(separator: ", "))) }
        let loaded = podcast.episodes.count
        let counted = podcast.episodeCount.map { " of \($0)" } ?? ""
        details.append("\(loaded)\(counted) \(loaded == 1 && counted.isEmpty ? "episode" : "episodes") loaded")
        if let appleID = podcast.appleID {
            details.append("id \(appleID)")
        } else if let feedURL = podcast.feedURL {
            details.append(SafeText.line(feedURL.absoluteString))
        }
        return [first, details.joined(separator: " · ")].map { cut($0, width) }.joined(separator: "\n")
    }

    /// The numbered episode table: number, date, length, status (when any), title,
    /// for the episodes `numbers` (1-based) of `podcast`. The status column is
    /// bounded, so that a long failure leaves room for the titles.
    static func episodes(
        _ podcast: Podcast,
        numbers: [Int]? = nil,
        statuses: [Int64: EpisodeStatus],
        marks: EpisodeMarksLookup = [:],
        width: Int?,
        color: Bool = false,
        timeZone: TimeZone = .current
    ) -> String {
        let numbers = numbers ?? podcast.episodes.indices.map { $0 + 1 }
        guard !numbers.isEmpty else { return "no episodes" }
        let rows: [[String]] = numbers.map { number in
            let episode = podcast.episodes[number - 1]
            return [
                String(number),
                episode.releaseDate.map { Formatting.date($0, timeZone: timeZone) } ?? "-",
                episode.duration.map(Formatting.duration) ?? "-",
                SafeText.line(Self.statusText(statuses[episode.id], marks[episode.id])),
                SafeText.line(episode.title),
            ]
        }
        let showStatus = rows.contains { !$0[3].isEmpty }
        var columns: [Table.Column] = [
            .init("#", rightAligned: true), .init("Date"), .init("Length", rightAligned: true),
            .init("Status", maxWidth: statusWidth), .init("Title"),
        ]
        var body = rows
        if !showStatus {
            columns.remove(at: 3)
            body = rows.map { row in
                var row = row
                row.remove(at: 3)
                return row
            }
        }
        return Table(columns: columns, rows: body).render(width: width, bold: color)
    }

    /// A download's status when it has one, else the library's `new`, `played` or
    /// `at 12:34`; a downloaded file says both (`downloaded, played`).
    static func statusText(_ status: EpisodeStatus?, _ marks: EpisodeMarks?) -> String {
        let download = status?.text ?? ""
        let listening = marks?.text ?? ""
        if case .downloaded? = status, !listening.isEmpty { return download + ", " + listening }
        return download.isEmpty ? listening : download
    }

    /// The widest the status column grows: `100% downloading` fits, a failure's
    /// reason is cut (`show N` has it in full).
    static let statusWidth = 24

    /// One episode in full, with the path of its file (and whether it is there yet);
    /// the description wrapped to `width` at word boundaries.
    static func episode(
        _ episode: Episode,
        number: Int,
        podcast: Podcast,
        status: EpisodeStatus?,
        marks: EpisodeMarks? = nil,
        path: String,
        width: Int? = nil,
        timeZone: TimeZone = .current
    ) -> String {
        var facts = [SafeText.line(podcast.title)]
        if let date = episode.releaseDate { facts.append(Formatting.date(date, timeZone: timeZone)) }
        if let duration = episode.duration { facts.append(Formatting.duration(duration)) }
        facts.append("episode \(number) of \(podcast.episodes.count)")
        var lines = [SafeText.line(episode.title), facts.joined(separator: " · ")]
        // Each fact's value keeps to its column when it wraps (a long URL or path).
        func field(_ label: String, _ value: String) {
            lines.append(Self.field(label, value, width: width))
        }
        // As its file is named (`feed-{hex}` when known only from its feed).
        field("id", DownloadLayout.name(episode.id))
        field("audio", SafeText.line(episode.audioURL.absoluteString))
        let file: String =
            switch status {
            case .downloaded?: SafeText.line(path)
            case .paused?, .downloading?, .queued?: SafeText.line(path) + " (not complete yet)"
            default: SafeText.line(path) + " (once downloaded)"
            }
        field("file", file)
        let statusText = Self.statusText(status, marks)
        if !statusText.isEmpty { field("status", SafeText.line(statusText)) }
        if let marks {
            field("guid", SafeText.line(marks.guid))
            if let season = marks.season, let number = marks.episode {
                field("number", "season \(season), episode \(number)")
            }
            if let chapters = marks.chaptersURL { field("chapters", SafeText.line(chapters)) }
            for transcript in marks.transcripts {
                field("transcript", "\(SafeText.line(transcript.url.absoluteString)) (\(transcript.type ?? "?"))")
            }
            for funding in marks.funding {
                field(
                    "funding",
                    SafeText.line(funding.url.absoluteString) + (funding.text.map { " \(SafeText.line($0))" } ?? "")
                )
            }
        }
        if let description = episode.description.map(SafeText.block), !description.isEmpty {
            lines.append("")
            lines.append(description.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let text = lines.joined(separator: "\n")
        return width.map { TextLayout.wrap(text, toWidth: $0) } ?? text
    }

    /// `label:  value`, the value starting in column 8 (or after a longer label)
    /// and wrapped under itself, so a long URL or path keeps the alignment.
    static func field(_ label: String, _ value: String, width: Int?) -> String {
        let head = (label + ":").padding(toLength: max(label.count + 2, 8), withPad: " ", startingAt: 0)
        guard let width, width - head.count >= 16 else { return head + value }
        let indent = "\n" + String(repeating: " ", count: head.count)
        return head
            + TextLayout.wrap(value, toWidth: width - head.count).split(separator: "\n").joined(separator: indent)
    }

    /// A directory search's results: number, episode count, title · artist.
    static func searchResults(_ results: [PodcastSearchResult]) -> Table {
        Table(
            columns: [.init("#", rightAligned: true), .init("Episodes", rightAligned: true), .init("Podcast")],
            rows: results.enumerated().map { index, result in
                [
                    String(index + 1), result.episodeCount.map(String.init) ?? "-",
                    SafeText.line(result.title) + (result.artist.map { " · " + SafeText.line($0) } ?? ""),
                ]
            }
        )
    }

    private static func cut(_ text: String, _ width: Int?) -> String {
        width.map { TextLayout.truncate(text, toWidth: $0) } ?? text
    }
}
