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

    package init(ref: String, podcast: String, title: String, snippet: String, at: Double?) {
        self.ref = ref
        self.podcast = podcast
        self.title = title
        self.snippet = snippet
        self.at = at
    }

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

    package init(position: Int, ref: String, podcast: String, title: String) {
        self.position = position
        self.ref = ref
        self.podcast = podcast
        self.title = title
    }

    package init(_ entry: QueueEntry) {
        position = entry.position
        ref = entry.ref
        podcast = SafeText.line(entry.podcast)
        title = SafeText.line(entry.title)
    }
}

/// The listening statistics, as every front end gives them: `stats --json` and
/// mcp's `stats` encode this value: the sums of `totals` at the top, then
/// `since`, `top` and `groups`. Seconds throughout.
package struct StatsEntry: Encodable, Sendable, Equatable {
    /// What one group (a podcast, a month), or all of it, adds up to.
    package struct Group: Encodable, Sendable, Equatable {
        /// The podcast's title or the month (`2026-11`); absent for the totals.
        package var name: String?
        /// Wall time listened, pauses left out.
        package var listened: Double
        /// Seconds of the files heard.
        package var heard: Double
        package var plays: Int
        package var finished: Int
        package var savedBySpeed: Double
        package var savedBySilence: Double

        package init(name: String?, _ totals: ListeningStats.Totals) {
            self.name = name.map(SafeText.line)
            listened = totals.listened
            heard = totals.heard
            plays = totals.plays
            finished = totals.finished
            savedBySpeed = totals.savedBySpeed
            savedBySilence = totals.savedBySilence
        }
    }

    /// Everything listened to (in the span asked for).
    package var totals: Group
    /// `--since`, as `2026-11-01`; nil for all of the history.
    package var since: String?
    /// The podcasts listened to most.
    package var top: [Group]
    /// Every group, by podcast or by month.
    package var groups: [Group]

    package init(_ stats: ListeningStats, since: String?) {
        totals = Group(name: nil, stats.totals)
        self.since = since
        top = stats.topPodcasts.map { Group(name: $0.name, $0.totals) }
        groups = stats.groups.map { Group(name: $0.name, $0.totals) }
    }

    private enum CodingKeys: String, CodingKey { case since, top, groups }

    package func encode(to encoder: any Encoder) throws {
        // The totals' keys first, at the top (a Group without a name).
        try totals.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(since, forKey: .since)
        try container.encode(top, forKey: .top)
        try container.encode(groups, forKey: .groups)
    }
}
