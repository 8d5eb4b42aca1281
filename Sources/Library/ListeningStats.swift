import Foundation

/// What the history adds up to (`stats`): time listened, episodes finished, time
/// saved by speed and by skipping silence, and the podcasts most listened to.
/// Pure: sums over the records it is given.
public struct ListeningStats: Sendable, Equatable {
    /// How `stats --by` groups the rows.
    public enum Grouping: String, Sendable, CaseIterable {
        case podcast
        case month
        /// ISO 8601 weeks: `2026-W48`.
        case week
    }

    /// The sums over some playbacks.
    public struct Totals: Sendable, Equatable {
        /// Seconds it took (pauses left out).
        public var listened: Double = 0
        /// Seconds of the files heard, silences included.
        public var heard: Double = 0
        public var plays = 0
        public var finished = 0
        public var savedBySpeed: Double = 0
        public var savedBySilence: Double = 0

        public init() {}

        mutating func add(_ record: PlaybackRecord) {
            listened += record.wallSeconds
            heard += record.mediaSeconds
            plays += 1
            if record.finished { finished += 1 }
            savedBySpeed += record.savedBySpeed
            savedBySilence += record.savedBySilence
        }
    }

    /// One row of a grouping: a podcast's title, a month (`2026-11`) or a week
    /// (`2026-W48`).
    public struct Group: Sendable, Equatable {
        public var name: String
        public var totals: Totals
    }

    public var totals = Totals()
    /// The groups asked for, most listened first for podcasts, in time order for
    /// months and weeks.
    public var groups: [Group] = []
    /// The podcasts listened to longest, at most five.
    public var topPodcasts: [Group] = []

    /// Adds up `records`, grouped `by` when asked; months are in `calendar`'s time
    /// zone.
    public init(_ records: [PlaybackRecord], by grouping: Grouping? = nil, calendar: Calendar = .current) {
        var podcasts: [String: Totals] = [:]
        var months: [String: Totals] = [:]
        var weeks: [String: Totals] = [:]
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = calendar.timeZone
        for record in records {
            totals.add(record)
            podcasts[record.podcastTitle, default: Totals()].add(record)
            let parts = calendar.dateComponents([.year, .month], from: record.started)
            let month = String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
            months[month, default: Totals()].add(record)
            let week = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: record.started)
            weeks[String(format: "%04d-W%02d", week.yearForWeekOfYear ?? 0, week.weekOfYear ?? 0), default: Totals()]
                .add(record)
        }
        let byTime = podcasts.map { Group(name: $0.key, totals: $0.value) }.sorted {
            ($0.totals.listened, $1.name) > ($1.totals.listened, $0.name)
        }
        topPodcasts = Array(byTime.prefix(5))
        switch grouping {
        case .podcast: groups = byTime
        case .month: groups = months.map { Group(name: $0.key, totals: $0.value) }.sorted { $0.name < $1.name }
        case .week: groups = weeks.map { Group(name: $0.key, totals: $0.value) }.sorted { $0.name < $1.name }
        case nil: groups = []
        }
    }
}
