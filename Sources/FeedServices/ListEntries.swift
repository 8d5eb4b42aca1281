import Library
import PlainText

/// One hit of the `find` index, as every front end gives it: `find --json` and
/// mcp's `search` encode this value.
package struct FindHitEntry: Codable, Sendable, Equatable {
    /// `P:E`.
    package var ref: String
    package var podcast: String
    package var title: String
    /// The words around the hit, on one line, without the marks a terminal
    /// shows in bold.
    package var snippet: String
    /// Seconds into the episode where a transcript says the words; nil for a
    /// show-notes hit.
    package var at: Double?

    package init(_ hit: SearchHit) {
        ref = hit.ref
        podcast = SafeText.line(hit.podcast)
        title = SafeText.line(hit.title)
        snippet = SafeText.line(String(hit.snippet.filter { $0 != SearchHit.markStart && $0 != SearchHit.markEnd }))
        at = hit.at
    }

    private enum CodingKeys: String, CodingKey { case ref, podcast, title, snippet, at }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ref, forKey: .ref)
        try container.encode(podcast, forKey: .podcast)
        try container.encode(title, forKey: .title)
        try container.encode(snippet, forKey: .snippet)
        try container.encode(at, forKey: .at)
    }
}

/// One entry of the play queue, as every front end gives it: `queue --json` and
/// mcp's `queue` encode this value.
package struct QueueItemEntry: Codable, Sendable, Equatable {
    /// From 1, in play order.
    package var position: Int
    /// `P:E`.
    package var ref: String
    package var podcast: String
    package var title: String

    package init(_ entry: QueueEntry) {
        position = entry.position
        ref = entry.ref
        podcast = SafeText.line(entry.podcast)
        title = SafeText.line(entry.title)
    }
}
