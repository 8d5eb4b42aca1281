import FeedServices
import Foundation
import Library
import PlainText
import TerminalKit

extension Render {
    /// The subscriptions: number, episode, new and downloaded counts, the last
    /// update, title and the last error.
    static func subscriptions(_ all: [SubscriptionEntry]) -> Table {
        Table(
            columns: [
                .init("#", rightAligned: true), .init("Episodes", rightAligned: true),
                .init("New", rightAligned: true), .init("Got", rightAligned: true), .init("Updated"),
                .init("Title", maxWidth: 40), .init("Error"),
            ],
            rows: all.map { entry in
                [
                    String(entry.number), String(entry.episodeCount), String(entry.newCount),
                    String(entry.downloadedCount), entry.updated.map { Formatting.date($0) } ?? "never",
                    SafeText.line(entry.title), SafeText.line(entry.code == "gone" ? "gone (410)" : entry.error ?? ""),
                ]
            }
        )
    }

    /// The new episodes of every subscription, numbered n1, n2...
    static func newEpisodes(_ lines: [NewEpisodeLine]) -> Table {
        let zone = TimeZone.current  // once, not once a row
        return Table(
            columns: [
                .init("#", rightAligned: true), .init("Date"), .init("Length", rightAligned: true),
                .init("Podcast", maxWidth: 28), .init("Title"),
            ],
            rows: lines.enumerated().map { index, line in
                [
                    "n\(index + 1)", line.published.map { Formatting.date($0, timeZone: zone) } ?? "-",
                    line.seconds.map { Formatting.duration(.seconds($0)) } ?? "-",
                    SafeText.line(line.podcastTitle), SafeText.line(line.title),
                ]
            }
        )
    }

    /// The snippet, sanitized, its matches in bold (`color`) or plain.
    static func snippet(_ hit: SearchHit, color: Bool) -> String {
        var out = ""
        var piece = ""
        for character in hit.snippet {
            guard character == SearchHit.markStart || character == SearchHit.markEnd else {
                piece.append(character)
                continue
            }
            out += SafeText.line(piece)
            piece = ""
            if color { out += character == SearchHit.markStart ? "\u{1B}[1m" : "\u{1B}[0m" }
        }
        return out + SafeText.line(piece)
    }

    /// `find`'s hits for a person: where each is (`P:E`, the time), the podcast
    /// and episode, and the snippet under it with the words found in bold.
    static func findHits(_ hits: [SearchHit], color: Bool, width: Int?) -> String {
        guard !hits.isEmpty else { return "nothing found" }
        var lines: [String] = []
        // The numbers and the references line up, however many hits there are
        // (`f9` above `f10`); the snippet sits under the reference.
        let numberWidth = "f\(hits.count)".count
        let places = hits.map { hit in hit.ref + (hit.at.map { " at " + Formatting.duration(.seconds($0)) } ?? "") }
        let placeWidth = places.map(\.count).max() ?? 0
        for (index, hit) in hits.enumerated() {
            let number = "f\(index + 1)".padding(toLength: numberWidth, withPad: " ", startingAt: 0)
            let place = places[index].padding(toLength: placeWidth, withPad: " ", startingAt: 0)
            let lead = "\(number)  \(place)  "
            let title = "\(SafeText.line(hit.podcast)): \(SafeText.line(hit.title))"
            // Wrapped, the title goes on under itself (or under the reference
            // when that leaves it too little room).
            if let width, TextLayout.width(lead + title) > width {
                let indent = lead.count <= width / 2 ? lead.count : numberWidth + 2
                let wrapped = TextLayout.wrap(title, toWidth: width - indent).split(separator: "\n")
                lines.append(lead + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { String(repeating: " ", count: indent) + $0 }
            } else {
                lines.append(lead + title)
            }
            let snippet = String(repeating: " ", count: numberWidth + 2) + snippet(hit, color: color)
            lines.append(width.map { TextLayout.wrap(snippet, toWidth: $0) } ?? snippet)
        }
        lines.append("('play fN' plays hit N, from where its words were said)")
        return lines.joined(separator: "\n")
    }
}

extension JSONRender {
    /// `podcasts --json`.
    static func subscriptions(_ all: [SubscriptionEntry]) -> JSONValue {
        (try? JSONValueEncoder().encode(all)) ?? .array([])
    }

    /// `new --json`.
    static func newEpisodes(_ fresh: [(podcast: StoredPodcast, episode: StoredEpisode)]) -> JSONValue {
        .array(
            fresh.enumerated().map { index, pair in
                libraryEpisode(pair.episode, podcast: pair.podcast, number: "n\(index + 1)")
            }
        )
    }

    /// `find --json`: each hit's `P:E`, podcast, title, snippet and time.
    /// `find --json`: the value mcp's `search` gives too.
    static func findHits(_ hits: [SearchHit]) -> JSONValue {
        (try? JSONValueEncoder().encode(hits.map(FindHitEntry.init))) ?? .array([])
    }
}
