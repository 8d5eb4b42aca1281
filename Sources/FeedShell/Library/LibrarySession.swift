import Downloads
import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import TerminalKit

/// What the library knows about an episode of the loaded subscription.
struct EpisodeMarks: Sendable, Equatable {
    let libraryID: Int64
    let guid: String
    let isNew: Bool
    let played: Bool
    let position: Double
    let season: Int?
    let episode: Int?
    let chaptersURL: String?
    /// The stored JSON of the transcripts and funding links, decoded when `show`
    /// asks (``transcripts``): a podcast of 200 000 episodes decodes none of them
    /// to be loaded.
    private let transcriptsJSON: String?
    private let fundingJSON: String?

    init(_ stored: StoredEpisode) {
        libraryID = stored.id ?? -1
        guid = stored.guid
        isNew = stored.isNew
        played = stored.played
        position = stored.position
        season = stored.season
        episode = stored.episodeNumber
        chaptersURL = stored.chaptersURL
        transcriptsJSON = stored.transcripts
        fundingJSON = stored.funding
    }

    var transcripts: [Transcript] { StoredEpisode.transcripts(fromJSON: transcriptsJSON) }

    var funding: [Funding] { StoredEpisode.funding(fromJSON: fundingJSON) }

    /// `played`, `at 12:34` (listened that far) or `new`, for the status column when
    /// no download says more.
    var text: String {
        if played { return "played" }
        if position >= 1 { return "at " + Formatting.duration(.seconds(position)) }
        return isNew ? "new" : ""
    }
}

/// The subscription loaded by `subscribe` or `podcast N`.
struct LoadedSubscription: Sendable {
    let podcast: StoredPodcast
    /// By ``FeedKit/Episode/id``.
    let marks: EpisodeMarksLookup
    /// A private feed's user name and password, for its enclosures on its origin.
    var credentials: FeedCredentials? = nil

    /// The `Authorization` header for a download of `url`: only on the feed's own
    /// origin.
    func authorization(for url: URL) -> String? {
        podcast.authorization(credentials, for: url)
    }
}

extension LibraryService {
    /// The `Authorization` header for a fetch of `url` (a transcript, chapters)
    /// for library episode `episodeID`: its private feed's credentials, on the
    /// feed's own origin only; nil for a public feed or another origin.
    func authorization(for url: URL, ofEpisode episodeID: Int64) async -> String? {
        guard let library = try? ifMade(), let episode = try? await library.episode(episodeID),
            let credentials = try? await library.credentials(of: episode.podcastID),
            let podcast = try? await library.podcast(episode.podcastID)
        else { return nil }
        return podcast.authorization(credentials, for: url)
    }
}

extension StoredPodcast {
    /// The `Authorization` header of `credentials` for a download of `url`: only
    /// on this feed's own origin.
    func authorization(_ credentials: FeedCredentials?, for url: URL) -> String? {
        guard let credentials, let feed = URL(string: feedURL), feed.origin == url.origin else { return nil }
        return credentials.authorization
    }
}

extension StoredPodcast {
    /// The ID its downloads are filed under: Apple's, else a key of its feed URL.
    var downloadKey: Int64 { itunesID ?? FeedKeys.podcast(feedURL: feedURL) }

    /// The ID an episode's download is filed under: Apple's trackId, else a key of
    /// its GUID in this feed.
    func episodeKey(guid: String, trackID: Int64?) -> Int64 {
        trackID ?? FeedKeys.episode(feedURL: feedURL, guid: guid)
    }
}

extension DownloadsService {
    /// How many of each subscription's episodes have their file on disk: what
    /// `episodes` would show as downloaded (files found on disk included, from
    /// whichever feedsh made them), by podcast ID.
    func downloadedOnDisk(_ podcasts: [StoredPodcast]) async -> [Int64: Int] {
        guard let library = library.existing(), let keys = try? await library.episodeKeys() else { return [:] }
        var counts: [Int64: Int] = [:]
        for podcast in podcasts {
            guard let id = podcast.id else { continue }
            let names = layout.completedNames(podcastID: podcast.downloadKey)
            guard !names.isEmpty else {
                counts[id] = 0
                continue
            }
            counts[id] = (keys[id] ?? []).reduce(into: 0) { count, key in
                let episodeKey = podcast.episodeKey(guid: key.guid, trackID: key.trackID)
                if names.contains(DownloadLayout.name(episodeKey)) { count += 1 }
            }
        }
        return counts
    }
}

extension DownloadsService {
    /// A download left paused on disk (by this run or any earlier one) of a
    /// library episode, named `P:E`.
    struct PartialDownload: Sendable {
        let target: DownloadTarget
        let podcast: String
        let bytes: Int64
        let total: Int64?
    }

    /// The subscriptions' `.part` files, as paused downloads of their episodes.
    /// Only the podcasts with such files are read whole.
    func partialDownloads() async -> [PartialDownload] {
        var found: [PartialDownload] = []
        for subscribed in await subscriptionsIfPartFiles() {
            let names = layout.partialNames(podcastID: subscribed.downloadKey)
            guard !names.isEmpty, let (podcast, subscription) = try? await self.library.view(of: subscribed) else {
                continue
            }
            for (index, episode) in podcast.episodes.enumerated() where names.contains(DownloadLayout.name(episode.id))
            {
                let request = self.request(
                    number: index + 1,
                    of: podcast,
                    subscription: subscription,
                    prefix: "\(subscribed.number):"
                )
                guard case .partial(let bytes, let total) = layout.status(of: request.file) else { continue }
                found.append(
                    PartialDownload(
                        target: DownloadTarget(label: label(for: request.id), request: request),
                        podcast: podcast.title,
                        bytes: bytes,
                        total: total
                    )
                )
            }
        }
        return found
    }

    /// How many downloads of the subscriptions wait paused on disk, without
    /// reading any podcast whole (for the line at start): a `.part` that the
    /// background feedsh or another shell is downloading is no paused download.
    func partialDownloadCount() async -> Int {
        await subscriptionsIfPartFiles().reduce(0) { $0 + layout.pausedNames(podcastID: $1.downloadKey).count }
    }

    /// The subscriptions, to look for their `.part` files; none, with the library
    /// left closed, when no podcast's folder holds one (the start and Tab's list,
    /// refreshed before every prompt, ask this).
    private func subscriptionsIfPartFiles() async -> [StoredPodcast] {
        guard layout.hasPartFiles(), let library = library.existing() else { return [] }
        return (try? await library.subscriptions()) ?? []
    }
}

extension LibraryService {
    /// Subscription `text` (its number in `podcasts`, which stays its own), or a
    /// usage error that says which numbers there are.
    func subscription(numbered text: some StringProtocol, synopsis: String) async throws(ShellError) -> StoredPodcast {
        let library = try make()
        let all = try await libraryCall { () async throws(LibraryError) in try await library.subscriptions() }
        guard !all.isEmpty else { throw .noSubscriptions }
        guard let number = Int(text), let podcast = all.first(where: { $0.number == number }) else {
            throw .noSubscription(String(text), among: all, synopsis: synopsis)
        }
        return podcast
    }
}

extension StoredEpisode {
    /// The ID its download is filed under: Apple's trackId, else a key of its GUID.
    func downloadKey(in podcast: StoredPodcast) -> Int64 {
        podcast.episodeKey(guid: guid, trackID: trackID)
    }

    /// As the rest of the shell knows episodes.
    func episode(in podcast: StoredPodcast) -> Episode? {
        guard let url = URL(string: audioURL) else { return nil }
        return Episode(
            id: downloadKey(in: podcast),
            podcastID: podcast.downloadKey,
            title: title,
            releaseDate: published,
            duration: seconds.map { .seconds($0) },
            audioURL: url,
            description: summary,
            guid: guid,
            declaredLength: audioLength
        )
    }
}

extension LibraryService {
    /// Subscription `podcast` with its whole history, as the shell knows podcasts,
    /// without loading it (for `P:E`): its episodes are read a page at a time.
    func view(of podcast: StoredPodcast) async throws(ShellError) -> (Podcast, LoadedSubscription) {
        let library = try make()
        let ids = try await libraryCall { () async throws(LibraryError) in
            try await library.episodeIDs(of: podcast.id ?? -1)
        }
        let episodes = LibraryEpisodes(library: library, podcast: podcast, ids: ids)
        let loaded = Podcast(
            id: podcast.downloadKey,
            title: podcast.title,
            artist: podcast.author,
            artworkURL: podcast.artworkURL.flatMap(URL.init(string:)),
            feedURL: URL(string: podcast.feedURL),
            episodeCount: ids.count,
            episodes: EpisodeList(source: episodes)
        )
        let credentials = try? await library.credentials(of: podcast.id ?? -1)
        return (
            loaded,
            LoadedSubscription(podcast: podcast, marks: EpisodeMarksLookup(episodes), credentials: credentials)
        )
    }
}
