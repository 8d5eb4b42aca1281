import Downloads
import FeedKit
import Foundation
import Library
import PlainText
import WebBasics

/// What the library knows about an episode of the loaded subscription.
package struct EpisodeMarks: Sendable, Equatable {
    package let libraryID: Int64
    package let guid: String
    package let isNew: Bool
    package let played: Bool
    package let position: Double
    package let season: Int?
    package let episode: Int?
    package let chaptersURL: String?
    /// The stored JSON of the transcripts and funding links, decoded when `show`
    /// asks (``transcripts``): a podcast of 200 000 episodes decodes none of them
    /// to be loaded.
    private let transcriptsJSON: String?
    private let fundingJSON: String?

    package init(_ stored: StoredEpisode) {
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

    package var transcripts: [Transcript] { StoredEpisode.transcripts(fromJSON: transcriptsJSON) }

    package var funding: [Funding] { StoredEpisode.funding(fromJSON: fundingJSON) }
}

/// The subscription loaded by `subscribe` or `podcast N`.
package struct LoadedSubscription: Sendable {
    package let podcast: StoredPodcast
    /// By ``FeedKit/Episode/id``.
    package let marks: EpisodeMarksLookup
    /// A private feed's user name and password, for its enclosures on its origin.
    package var credentials: FeedCredentials? = nil

    /// The `Authorization` header for a download of `url`: only on the feed's own
    /// origin.
    package func authorization(for url: URL) -> String? {
        podcast.authorization(credentials, for: url)
    }
}

extension LibraryService {
    /// The `Authorization` header for a fetch of `url` (a transcript, chapters)
    /// for library episode `episodeID`: its private feed's credentials, on the
    /// feed's own origin only; nil for a public feed or another origin.
    package func authorization(for url: URL, ofEpisode episodeID: Int64) async -> String? {
        guard let library = try? openIfExists(), let episode = try? await library.episode(episodeID),
            let credentials = try? await library.credentials(of: episode.podcastID),
            let podcast = try? await library.podcast(episode.podcastID)
        else { return nil }
        return podcast.authorization(credentials, for: url)
    }
}

extension StoredPodcast {
    /// The `Authorization` header of `credentials` for a download of `url`: only
    /// on this feed's own origin.
    package func authorization(_ credentials: FeedCredentials?, for url: URL) -> String? {
        guard let credentials, let feed = URL(string: feedURL), feed.origin == url.origin else { return nil }
        return credentials.authorization
    }
}

extension StoredPodcast {
    /// The ID its downloads are filed under: Apple's, else a key of its feed URL.
    package var downloadKey: Int64 { itunesID ?? FeedKeys.podcast(feedURL: feedURL) }

    /// The ID an episode's download is filed under: Apple's trackId, else a key of
    /// its GUID in this feed.
    package func episodeKey(guid: String, trackID: Int64?) -> Int64 {
        trackID ?? FeedKeys.episode(feedURL: feedURL, guid: guid)
    }
}

extension DownloadsService {
    /// How many of each subscription's episodes have their file on disk: what
    /// `episodes` would show as downloaded (files found on disk included, from
    /// whichever feedsh made them), by podcast ID.
    ///
    /// Only the episodes of podcasts with a file in their folder are read: a
    /// library of a million episodes and few downloads reads few of them.
    package func downloadedOnDisk(_ podcasts: [StoredPodcast]) async -> [Int64: Int] {
        guard let library = library.existing() else { return [:] }
        var counts: [Int64: Int] = [:]
        var withFiles: [(podcast: StoredPodcast, id: Int64, names: Set<String>)] = []
        for podcast in podcasts {
            guard let id = podcast.id else { continue }
            let names = layout.completedNames(podcastID: podcast.downloadKey)
            if names.isEmpty {
                counts[id] = 0
            } else {
                withFiles.append((podcast, id, names))
            }
        }
        if withFiles.isEmpty { return counts }
        guard let keys = try? await library.episodeKeys(of: withFiles.map(\.id)) else { return [:] }
        for (podcast, id, names) in withFiles {
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
    package struct PartialDownload: Sendable {
        package let target: DownloadTarget
        package let podcast: String
        package let bytes: Int64
        package let total: Int64?
    }

    /// The subscriptions' `.part` files, as paused downloads of their episodes.
    /// Only the podcasts with such files are read whole.
    package func partialDownloads() async -> [PartialDownload] {
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
                        target: DownloadTarget(name: name(for: request.id), request: request),
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
    package func partialDownloadCount() async -> Int {
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

extension StoredEpisode {
    /// The ID its download is filed under: Apple's trackId, else a key of its GUID.
    package func downloadKey(in podcast: StoredPodcast) -> Int64 {
        podcast.episodeKey(guid: guid, trackID: trackID)
    }

    /// As the rest of the shell knows episodes.
    package func episode(in podcast: StoredPodcast) -> Episode? {
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
    package func view(of podcast: StoredPodcast) async throws(LibraryError) -> (Podcast, LoadedSubscription) {
        let library = try open()
        let ids = try await library.episodeIDs(of: podcast.id ?? -1)
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
