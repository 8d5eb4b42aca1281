import FeedKit
import Foundation
import Library
import PlainText

/// `find`'s hits, as mcp's `search` and the web page give them.
package struct HitList: DescribedValue, Sendable, Equatable {
    package var hits: [FindHitEntry]

    package init(_ hits: [FindHitEntry]) { self.hits = hits }

    package static var examples: [HitList] { [HitList(FindHitEntry.examples)] }
}

/// Every subscription (mcp's `subscriptions`).
package struct SubscriptionList: DescribedValue, Sendable, Equatable {
    package var subscriptions: [SubscriptionEntry]

    package init(_ subscriptions: [SubscriptionEntry]) { self.subscriptions = subscriptions }

    package static var examples: [SubscriptionList] { [SubscriptionList(SubscriptionEntry.examples)] }
}

/// Episodes of one podcast, or the new ones of all (mcp's `episodes`, `new`).
package struct EpisodeEntries: DescribedValue, Sendable {
    package var episodes: [EpisodeEntry]

    package init(_ episodes: [EpisodeEntry]) { self.episodes = episodes }

    package static var examples: [EpisodeEntries] { [EpisodeEntries(EpisodeEntry.examples.filter(\.isListed))] }
}

/// One episode in full (mcp's `episode`): what `show --json` gives, and whether
/// its transcript is kept in the library.
package struct EpisodeDetail: DescribedValue, Sendable {
    package var entry: EpisodeEntry
    package var transcriptKept: Bool

    package init(_ entry: EpisodeEntry, transcriptKept: Bool) {
        self.entry = entry
        self.transcriptKept = transcriptKept
    }

    private enum CodingKeys: String, CodingKey { case transcriptKept }

    package func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transcriptKept, forKey: .transcriptKept)
    }

    package static var examples: [EpisodeDetail] {
        EpisodeEntry.examples.filter { $0.detail != nil }.map { EpisodeDetail($0, transcriptKept: true) }
    }
}

/// Part of an episode's transcript (mcp's `transcript`): `next`, when there is
/// more, is the `after` that asks for it.
package struct TranscriptPage: DescribedValue, Sendable, Equatable {
    /// One paragraph: a speaker's turn, or the cues a pause ends.
    package struct Paragraph: Codable, Sendable, Equatable {
        /// Seconds in; nil when the transcript has no times.
        package var start: Double?
        package var speaker: String?
        package var text: String

        package init(start: Double?, speaker: String?, text: String) {
            self.start = start
            self.speaker = speaker.map(SafeText.line)
            self.text = SafeText.line(text)
        }

        /// A paragraph of a kept transcript.
        package init(_ paragraph: TranscriptCue) {
            self.init(start: paragraph.start, speaker: paragraph.speaker, text: paragraph.text)
        }

        private enum CodingKeys: String, CodingKey { case start, speaker, text }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(speaker, forKey: .speaker)
            try container.encode(text, forKey: .text)
        }
    }

    package var ref: String
    package var paragraphs: [Paragraph]
    /// Paragraphs in the span asked for.
    package var total: Int
    package var next: Int?

    package init(ref: String, paragraphs: [Paragraph], total: Int, next: Int?) {
        self.ref = ref
        self.paragraphs = paragraphs
        self.total = total
        self.next = next
    }

    private enum CodingKeys: String, CodingKey { case ref, paragraphs, total, next }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ref, forKey: .ref)
        try container.encode(paragraphs, forKey: .paragraphs)
        try container.encode(total, forKey: .total)
        try container.encode(next, forKey: .next)
    }

    package static var examples: [TranscriptPage] {
        [
            TranscriptPage(
                ref: "2:1",
                paragraphs: [
                    Paragraph(start: 12.5, speaker: "Ada", text: "Welcome back."),
                    Paragraph(start: nil, speaker: nil, text: "Thanks."),
                ],
                total: 120,
                next: 200
            ),
            TranscriptPage(ref: "2:1", paragraphs: [], total: 0, next: nil),
        ]
    }
}

/// The play queue (mcp's `queue`).
package struct QueueList: DescribedValue, Sendable, Equatable {
    package var queue: [QueueItemEntry]

    package init(_ queue: [QueueItemEntry]) { self.queue = queue }

    package static var examples: [QueueList] {
        [QueueList([QueueItemEntry(position: 1, ref: "2:1", podcast: "Swift Weekly", title: "Actors")])]
    }
}

/// What adding to the queue did (mcp's `queue_add`).
package struct QueueAddition: DescribedValue, Sendable, Equatable {
    /// False when it was queued already.
    package var added: Bool
    /// How many are queued now.
    package var queued: Int

    package init(added: Bool, queued: Int) {
        self.added = added
        self.queued = queued
    }

    package static var examples: [QueueAddition] { [QueueAddition(added: true, queued: 3)] }
}

/// An episode marked (mcp's `mark`).
package struct MarkChange: DescribedValue, Sendable, Equatable {
    package var ref: String
    /// `played`, `unplayed` or `old`.
    package var mark: String

    package init(ref: String, mark: String) {
        self.ref = ref
        self.mark = mark
    }

    private enum CodingKeys: String, CodingKey {
        case ref
        case mark = "as"
    }

    package static var examples: [MarkChange] { [MarkChange(ref: "2:1", mark: "played")] }
}

/// A download asked for (mcp's `download`).
package struct DownloadStart: DescribedValue, Sendable, Equatable {
    /// Where it stands: `completed` (on disk already), `queued`, `downloading`.
    package enum State: String, Encodable, Sendable, CaseIterable {
        case completed, queued, downloading
    }

    package var ref: String
    package var state: State

    package init(ref: String, state: State) {
        self.ref = ref
        self.state = state
    }

    package static var examples: [DownloadStart] { State.allCases.map { DownloadStart(ref: "2:1", state: $0) } }
}

/// A subscription made, or found made already (mcp's `subscribe`).
package struct SubscribeAnswer: DescribedValue, Sendable, Equatable {
    package var number: Int
    package var title: String
    /// False when it was subscribed already.
    package var created: Bool
    package var episodes: Int

    package init(number: Int, title: String, created: Bool, episodes: Int) {
        self.number = number
        self.title = SafeText.line(title)
        self.created = created
        self.episodes = episodes
    }

    package static var examples: [SubscribeAnswer] {
        [SubscribeAnswer(number: 2, title: "Swift Weekly", created: true, episodes: 40)]
    }
}

extension FindHitEntry: DescribedValue {
    package static var examples: [FindHitEntry] {
        [
            FindHitEntry(ref: "2:1", podcast: "Swift Weekly", title: "Actors", snippet: "…isolated actors…", at: 754),
            FindHitEntry(ref: "2:3", podcast: "Swift Weekly", title: "Macros", snippet: "…macros…", at: nil),
        ]
    }
}

extension QueueItemEntry: DescribedValue {
    package static var examples: [QueueItemEntry] { QueueList.examples[0].queue }
}

extension SubscriptionEntry: DescribedValue {
    package static var examples: [SubscriptionEntry] {
        var fed = StoredPodcast(feedURL: "https://example.com/feed.xml", title: "Swift Weekly", itunesID: 1_234_567)
        fed.id = 2
        fed.author = "Ada"
        fed.updated = Date(timeIntervalSince1970: 1_795_000_000)
        var failing = StoredPodcast(feedURL: "https://example.org/gone.xml", title: "Old Show")
        failing.id = 3
        failing.gone = true
        var fresh = StoredPodcast(feedURL: "https://example.net/new.xml", title: "New Show")
        fresh.id = 4
        return [
            SubscriptionEntry(PodcastSummary(podcast: fed, episodeCount: 40, newCount: 2, downloadedCount: 1)),
            SubscriptionEntry(PodcastSummary(podcast: failing, episodeCount: 12, newCount: 0, downloadedCount: 0)),
            SubscriptionEntry(PodcastSummary(podcast: fresh, episodeCount: 0, newCount: 0, downloadedCount: 0)),
        ]
    }
}

extension StatsEntry: DescribedValue {
    package static var examples: [StatsEntry] {
        let episode = EpisodeIdentity(
            episodeID: 7,
            podcastTitle: "Swift Weekly",
            episodeTitle: "Actors",
            feedURL: "https://example.com/feed.xml",
            guid: "urn:swift-weekly:40"
        )
        let record = PlaybackRecord(
            episode: episode,
            started: Date(timeIntervalSince1970: 1_795_000_000),
            fromSeconds: 0,
            toSeconds: 1830,
            mediaSeconds: 1830,
            wallSeconds: 1220,
            speed: 1.5,
            silenceSkipped: 12.5,
            finished: true
        )
        return [
            StatsEntry(ListeningStats([record], by: .podcast), since: "2026-11-01"),
            StatsEntry(ListeningStats([record], by: .podcast), since: nil),
        ]
    }
}

extension EpisodeEntry: DescribedValue {
    /// Listed (`episodes`, `new`) rather than shown in full.
    package var isListed: Bool { detail == nil && library != nil }

    package static var examples: [EpisodeEntry] {
        var podcast = StoredPodcast(feedURL: "https://example.com/feed.xml", title: "Swift Weekly")
        podcast.id = 2
        let item = FeedItem(
            guid: "urn:swift-weekly:40",
            title: "Actors",
            published: Date(timeIntervalSince1970: 1_795_000_000),
            duration: .seconds(1830),
            enclosure: Enclosure(url: URL(string: "https://example.com/40.mp3")!, type: "audio/mpeg", length: 1000),
            season: 2,
            episode: 40,
            chaptersURL: URL(string: "https://example.com/40.json"),
            transcripts: [Transcript(url: URL(string: "https://example.com/40.vtt")!, type: "text/vtt")],
            funding: [Funding(url: URL(string: "https://example.com/give")!, text: "Support")]
        )
        var stored = StoredEpisode(item, podcastID: 2, isNew: true)
        stored.id = 7
        var bare = StoredEpisode(
            FeedItem(
                guid: "urn:swift-weekly:39",
                title: "Sendable",
                enclosure: Enclosure(url: URL(string: "https://example.com/39.mp3")!)
            ),
            podcastID: 2,
            isNew: false
        )
        bare.id = 6
        let marks = EpisodeMarks(stored)
        let episode = stored.episode(in: podcast)!
        let bareEpisode = bare.episode(in: podcast)!
        return [
            EpisodeEntry(
                episode,
                number: .place(1),
                status: .paused(bytes: 500, total: 1000),
                library: .init(ref: "2:1", marks: marks, podcast: podcast.title)
            ),
            EpisodeEntry(
                bareEpisode,
                number: .name("n1"),
                status: .none,
                library: .init(ref: nil, marks: EpisodeMarks(bare), podcast: nil)
            ),
            EpisodeEntry(
                episode,
                number: .place(1),
                status: .downloaded(bytes: 1000),
                detail: (description: "Show notes.", path: "/home/ada/Podcasts/swift-weekly/40.mp3"),
                library: .init(ref: "2:1", marks: marks, podcast: podcast.title)
            ),
            EpisodeEntry(
                bareEpisode,
                number: .place(2),
                status: .failed("HTTP 404"),
                detail: (description: nil, path: nil),
                library: .init(ref: "2:2", marks: EpisodeMarks(bare), podcast: podcast.title)
            ),
            EpisodeEntry(bareEpisode, number: .place(3), status: .downloading(nil)),
            EpisodeEntry(bareEpisode, number: .place(3), status: .queued),
        ]
    }
}
