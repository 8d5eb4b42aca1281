import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import TerminalKit

extension FoundHits {
    func text(on page: Page) -> String? { Render.findHits(hits, color: page.color, width: page.width) }
    func encode(to encoder: any Encoder) throws { try JSONRender.findHits(hits).encode(to: encoder) }
}

extension Marked {
    func text(on page: Page) -> String? {
        "marked \(Formatting.count(count, "episode")) \(mark)"
    }
}

extension Imported {
    func text(on page: Page) -> String? {
        var lines: [SafeLine] = [
            "imported \(added.count) of \(Formatting.count(feeds, "feed")) (\(skipped) already subscribed or repeated)"
        ]
        lines += problems.map { "skipped \($0)" }
        if !added.isEmpty { lines.append("'update' reads their feeds") }
        return SafeLine.lines(lines)
    }
}

extension ExportedOPML {
    func text(on page: Page) -> String? { opml }
}

extension Exported {
    func text(on page: Page) -> String? {
        SafeLine("exported \(Formatting.count(count, "subscription")) to \(path)").description
    }
}

extension LoadedPodcast {
    func text(on page: Page) -> String? { Render.podcastHeader(podcast, width: page.width) }

    func encode(to encoder: any Encoder) throws {
        try JSONRender.podcast(podcast, statuses: statuses, marks: marks).encode(to: encoder)
    }
}

extension Unsubscribed {
    func text(on page: Page) -> String? { SafeLine("unsubscribed from \(title)").description }
}

extension Subscribed {
    func text(on page: Page) -> String? {
        let verb = created ? "subscribed to" : "already subscribed to"
        var lines: [SafeLine] = ["\(verb) \(title): \(Formatting.count(episodeCount, "episode"))"]
        if let updateFailure { lines.append("update failed: \(updateFailure)") }
        return SafeLine.lines(lines)
    }
}

extension AlreadySubscribed {
    func text(on page: Page) -> String? { SafeLine("already subscribed to \(title)").description }
}

extension Updated {
    func text(on page: Page) -> String? {
        guard let report else { return EmptyListing.noSubscriptionsToUpdate.line.description }
        return Render.update(report, deletions: report.deletions.map(\.message))
    }

    func encode(to encoder: any Encoder) throws {
        try (report.map { JSONRender.update($0.results) } ?? .array([])).encode(to: encoder)
    }
}

extension Render {
    /// `password for USER at HOST: `, asked without echo.
    static func passwordPrompt(user: String, host: String?) -> String {
        SafeLine("password for \(user) at \(host ?? "?"): ").description
    }
}

extension EpisodeTable {
    func text(on page: Page) -> String? {
        let filter = words.isEmpty ? "" : SafeLine(" match '\(words.joined(separator: " "))'").description
        guard !numbers.isEmpty else {
            return words.isEmpty
                ? "no episodes" : SafeLine("no episode titles contain '\(words.joined(separator: " "))'").description
        }
        var footer: String?
        if numbers.count < matching {
            footer = "(\(numbers.count) of \(matching) episodes\(filter); --limit N shows more)"
        } else if matching < podcast.episodes.count {
            footer = "(\(matching) of \(podcast.episodes.count) episodes\(filter))"
        }
        let table = Render.episodes(
            podcast,
            numbers: numbers,
            statuses: statuses,
            marks: marks,
            width: page.width,
            color: page.color
        )
        return table + (footer.map { "\n" + $0 } ?? "")
    }

    func encode(to encoder: any Encoder) throws {
        try JSONRender.episodes(
            podcast,
            numbers: numbers,
            statuses: statuses,
            marks: marks,
            subscription: subscriptionNumber
        ).encode(to: encoder)
    }
}

extension ShownEpisode {
    func text(on page: Page) -> String? {
        Render.episode(
            episode,
            number: number,
            podcast: podcast,
            status: status,
            marks: marks,
            path: path,
            width: page.width
        )
    }

    func encode(to encoder: any Encoder) throws {
        try JSONRender.episode(
            episode,
            number: number,
            status: status,
            full: true,
            path: path,
            marks: marks,
            podcast: podcast.title,
            ref: ref
        ).encode(to: encoder)
    }
}
