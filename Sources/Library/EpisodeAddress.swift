import GRDB

/// A library episode named by identity: its subscription (P, the number
/// `podcasts` shows, which is the subscription's row id) and the episode's own
/// row. The shell resolves `N`, `P:E`, `fN`, queue positions and `new` to these
/// once, at its parse boundary; what comes after (downloads, playback, sync,
/// `show`) reads the episode by this and never by the words that named it.
public struct EpisodeRef: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The subscription's row id (P of `P:E`).
    public let podcast: Int64
    /// The episode's row id.
    public let episode: Int64

    public init(podcast: Int64, episode: Int64) {
        self.podcast = podcast
        self.episode = episode
    }

    /// For logs and failures: `podcast 2, episode row 17` (the listed `P:E` is
    /// ``EpisodeAddressed/ref``, which moves as new episodes arrive).
    public var description: String { "podcast \(podcast), episode row \(episode)" }
}

/// Something that names a library episode as the shell does: episode E (as
/// `episodes` numbers them) of subscription P.
public protocol EpisodeAddressed {
    /// P: the subscription's number.
    var podcastNumber: Int64 { get }
    /// E: the episode's number in its subscription's list.
    var episodeNumber: Int { get }
    /// The episode's row id.
    var episodeID: Int64 { get }
}

extension EpisodeAddressed {
    /// `P:E`.
    public var ref: String { "\(podcastNumber):\(episodeNumber)" }

    /// The episode by identity.
    public var episodeRef: EpisodeRef { EpisodeRef(podcast: podcastNumber, episode: episodeID) }
}

extension SearchHit: EpisodeAddressed {}
extension QueueEntry: EpisodeAddressed {}

/// A library episode as every route resolves it: its subscription, its stored
/// row, and where it is listed now (E of `P:E`).
public struct ResolvedLibraryEpisode: Sendable, EpisodeAddressed {
    public let podcast: StoredPodcast
    public let stored: StoredEpisode
    public let episodeNumber: Int

    public var podcastNumber: Int64 { podcast.id ?? 0 }
    public var episodeID: Int64 { stored.id ?? 0 }
}

extension Library {
    /// The episodes `refs` name, with their subscriptions and listed numbers, in
    /// the order given; a ref whose episode or subscription is gone (unsubscribed,
    /// or the row of another subscription) is left out.
    public func resolve(_ refs: [EpisodeRef]) async throws(LibraryError) -> [ResolvedLibraryEpisode] {
        try await read { db in
            var podcasts: [Int64: StoredPodcast] = [:]
            var resolved: [ResolvedLibraryEpisode] = []
            for ref in refs {
                guard let stored = try StoredEpisode.fetchOne(db, key: ref.episode), stored.podcastID == ref.podcast
                else { continue }
                if podcasts[ref.podcast] == nil {
                    podcasts[ref.podcast] = try StoredPodcast.fetchOne(db, key: ref.podcast)
                }
                guard let podcast = podcasts[ref.podcast] else { continue }
                resolved.append(
                    ResolvedLibraryEpisode(
                        podcast: podcast,
                        stored: stored,
                        episodeNumber: try Self.listedNumber(of: ref.episode, db)
                    )
                )
            }
            return resolved
        }
    }
}

/// What `P:E` names in the library, read at once.
public enum ListedEpisode: Sendable {
    /// There is no subscription P.
    case noSubscription
    /// Subscription P lists fewer than E episodes: `count` of them.
    case outOfRange(count: Int)
    case found(ResolvedLibraryEpisode)
}

extension Library {
    /// Episode `number` (1 = newest, as `episodes` lists them) of subscription
    /// `podcast`, with its subscription, in one read.
    public func episode(listed number: Int, of podcast: Int64) async throws(LibraryError) -> ListedEpisode {
        try await read { db in
            guard let subscription = try StoredPodcast.fetchOne(db, key: podcast) else { return .noSubscription }
            let stored =
                number < 1
                ? nil
                : try StoredEpisode.fetchOne(
                    db,
                    sql: "SELECT * FROM episode WHERE podcastID = ? ORDER BY published DESC, id DESC LIMIT 1 OFFSET ?",
                    arguments: [podcast, number - 1]
                )
            guard let stored else {
                let count = try StoredEpisode.filter(StoredEpisode.Columns.podcastID == podcast).fetchCount(db)
                return .outOfRange(count: count)
            }
            return .found(ResolvedLibraryEpisode(podcast: subscription, stored: stored, episodeNumber: number))
        }
    }
}
