import Downloads
import FeedKit
import Foundation

/// Turns models into the text the shell prints. Pure functions of their inputs, so
/// that tables can be tested at any width; every string from the network goes
/// through ``TerminalText`` here.
enum Render {
    /// Two lines: title and artist; genres and how many episodes were loaded.
    static func podcastHeader(_ podcast: Podcast, width: Int?) -> String {
        var first = TerminalText.line(podcast.title)
        if let artist = podcast.artist, !artist.isEmpty { first += " · " + TerminalText.line(artist) }
        var details: [String] = []
        if !podcast.genres.isEmpty { details.append(TerminalText.line(podcast.genres.joined(separator: ", "))) }
        let loaded = podcast.episodes.count
        let counted = podcast.episodeCount.map { " of \($0)" } ?? ""
        details.append("\(loaded)\(counted) \(loaded == 1 && counted.isEmpty ? "episode" : "episodes") loaded")
        details.append("id \(podcast.id)")
        return [first, details.joined(separator: " · ")].map { cut($0, width) }.joined(separator: "\n")
    }

    /// The numbered episode table: number, date, length, status (when any), title.
    static func episodes(
        _ podcast: Podcast,
        statuses: [Int64: EpisodeStatus],
        width: Int?,
        color: Bool = false,
        timeZone: TimeZone = .current
    ) -> String {
        guard !podcast.episodes.isEmpty else { return "no episodes" }
        let rows: [[String]] = podcast.episodes.enumerated().map { index, episode in
            [
                String(index + 1),
                episode.releaseDate.map { Formatting.date($0, timeZone: timeZone) } ?? "-",
                episode.duration.map(Formatting.duration) ?? "-",
                TerminalText.line(statuses[episode.id]?.text ?? ""),
                TerminalText.line(episode.title),
            ]
        }
        let showStatus = rows.contains { !$0[3].isEmpty }
        var header = ["#", "Date", "Length", "Status", "Title"]
        var body = rows
        if !showStatus {
            header.remove(at: 3)
            body = rows.map { row in
                var row = row; row.remove(at: 3); return row
            }
        }
        return table(header: header, rows: body, rightAligned: [0, 2], width: width, boldHeader: color)
    }

    /// One episode in full.
    static func episode(
        _ episode: Episode,
        number: Int,
        podcast: Podcast,
        status: EpisodeStatus?,
        timeZone: TimeZone = .current
    ) -> String {
        var facts = [TerminalText.line(podcast.title)]
        if let date = episode.releaseDate { facts.append(Formatting.date(date, timeZone: timeZone)) }
        if let duration = episode.duration { facts.append(Formatting.duration(duration)) }
        facts.append("episode \(number) of \(podcast.episodes.count)")
        var lines = [TerminalText.line(episode.title), facts.joined(separator: " · ")]
        lines.append("id:     \(episode.id)")
        lines.append("audio:  \(TerminalText.line(episode.audioURL.absoluteString))")
        if let status, status != .none { lines.append("status: \(TerminalText.line(status.text))") }
        if let description = episode.description.map(TerminalText.block), !description.isEmpty {
            lines.append("")
            lines.append(description.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return lines.joined(separator: "\n")
    }

    /// Columns separated by two spaces; the last column takes what width is left and
    /// is cut with an ellipsis when `width` is known. `boldHeader` sets the heading in
    /// bold with SGR escapes (for a colour terminal).
    static func table(
        header: [String],
        rows: [[String]],
        rightAligned: Set<Int>,
        width: Int?,
        boldHeader: Bool = false
    ) -> String {
        let columns = header.count
        var widths = header.map(TerminalText.width)
        for row in rows {
            for column in 0..<columns - 1 {
                widths[column] = max(widths[column], TerminalText.width(row[column]))
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for column in 0..<columns - 1 {
                let cell = cells[column]
                let padding = String(repeating: " ", count: widths[column] - TerminalText.width(cell))
                text += rightAligned.contains(column) ? padding + cell : cell + padding
                text += "  "
            }
            return cut(text + cells[columns - 1], width)
        }
        let heading = boldHeader ? "\u{1B}[1m" + line(header) + "\u{1B}[0m" : line(header)
        return ([heading] + rows.map(line)).joined(separator: "\n")
    }

    private static func cut(_ text: String, _ width: Int?) -> String {
        width.map { TerminalText.truncate(text, toWidth: $0) } ?? text
    }
}
