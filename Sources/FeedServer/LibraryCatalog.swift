import Downloads
import FeedKit
import FeedServices
import Foundation
import HTTPSupport
import Library
import WebBasics

/// What `feedsh serve` serves, read from the library and the download folder
/// each time it is asked: the episodes whose complete file is on disk.
public struct LibraryCatalog: ServeCatalog {
    let services: Services
    /// Tells when the library or the download folder changed.
    let changes: ChangeWatch

    public init(services: Services) {
        self.services = services
        changes = ChangeWatch(
            downloads: services.configuration.downloadDirectory,
            library: services.library.file
        )
    }

    public func version(of choice: FeedChoice) -> FeedVersion? {
        guard let count = changes.current() else { return nil }
        guard case .playlist = choice else { return FeedVersion(changes: count) }
        // `since:7d` moves with the clock.
        return FeedVersion(changes: count, minute: Int64(Date().timeIntervalSince1970 / 60))
    }

    public var mediaRoot: URL { services.configuration.downloadDirectory }

    public func feed(_ choice: FeedChoice) async throws -> ServedFeed? {
        guard let library = try services.library.openIfExists() else {
            return choice == .all || choice == .queue ? empty(choice) : nil
        }
        switch choice {
        case .all:
            var items: [ServedItem] = []
            for summary in try await library.podcasts() {
                items += try await downloaded(of: summary.podcast, in: library)
            }
            items.sort { ($0.date ?? .distantPast) > ($1.date ?? .distantPast) }
            // One podcast subscribed under two addresses (a moved feed, http and
            // https) has each episode twice, under one GUID: an app would take
            // them for one, so the feed gives it once.
            var seen = Set<String>()
            items = items.filter { seen.insert($0.guid).inserted }
            var feed = empty(.all)
            feed.items = items
            return feed
        case .queue:
            var items: [ServedItem] = []
            var podcasts: [Int64: StoredPodcast] = [:]
            for entry in try await library.queue() {
                if podcasts[entry.podcastNumber] == nil {
                    podcasts[entry.podcastNumber] = try await library.podcast(entry.podcastNumber)
                }
                guard let podcast = podcasts[entry.podcastNumber],
                    let stored = try await library.episode(entry.episodeID),
                    let item = served(stored, of: podcast)
                else { continue }
                items.append(item)
            }
            var feed = empty(.queue)
            feed.items = items
            return feed
        case .playlist(let name):
            let found: (playlist: StoredPlaylist, episodes: [ResolvedLibraryEpisode])
            do {
                found = try await services.playlist(named: name)
            } catch is PlaylistProblem {
                return nil
            }
            return ServedFeed(
                title: "feedsh: \(found.playlist.name)",
                description: "The downloaded episodes of the playlist \(found.playlist.filter).",
                items: found.episodes.compactMap { served($0.stored, of: $0.podcast) }
            )
        case .podcast(let number):
            guard let podcast = try await library.podcast(number) else { return nil }
            return ServedFeed(
                title: podcast.title,
                description: podcast.summary ?? podcast.title,
                author: podcast.author,
                artworkURL: podcast.artworkURL.map(URL.redacted),
                items: try await downloaded(of: podcast, in: library)
            )
        }
    }

    public func subscriptionsOPML() async throws -> String {
        let podcasts = try await services.library.openIfExists()?.podcasts() ?? []
        // Dated by the newest subscription, so that the document (and its ETag)
        // changes only when the subscriptions do.
        return OPML.write(
            podcasts.compactMap { summary in
                URL(string: URL.redacted(summary.podcast.feedURL)).map {
                    OPML.Entry(title: summary.podcast.title, feedURL: $0)
                }
            },
            date: podcasts.map(\.podcast.subscribed).max() ?? Date(timeIntervalSince1970: 0)
        )
    }

    private func empty(_ choice: FeedChoice) -> ServedFeed {
        switch choice {
        case .queue:
            ServedFeed(
                title: "feedsh: queue",
                description: "The play queue's downloaded episodes, in order.",
                items: []
            )
        default:
            ServedFeed(title: "feedsh: all episodes", description: "Every downloaded episode, newest first.", items: [])
        }
    }

    /// The file's type by its extension (what it is), else the feed's.
    static func type(ofExtension ext: String, declared: String?) -> String {
        let known = MediaTypes.type(ofExtension: ext)
        guard known == "application/octet-stream", let declared,
            declared.hasPrefix("audio/") || declared.hasPrefix("video/")
        else { return known }
        return declared
    }

    /// A podcast's episodes whose complete file is on disk, newest first. Its
    /// folder is listed once (``DownloadLayout/completedNames(podcastID:)``): a
    /// podcast with no file costs no read of its episodes, and only its episodes
    /// with a file are looked at on disk.
    private func downloaded(of podcast: StoredPodcast, in library: Library) async throws -> [ServedItem] {
        let names = services.downloads.layout.completedNames(podcastID: podcast.downloadKey)
        guard !names.isEmpty else { return [] }
        return try await library.episodes(of: podcast.id ?? -1, withSummaries: true).compactMap { stored in
            guard names.contains(DownloadLayout.name(stored.downloadKey(in: podcast))) else { return nil }
            return served(stored, of: podcast)
        }
    }

    /// The episode as a served item, when its complete file is on disk.
    func served(_ stored: StoredEpisode, of podcast: StoredPodcast) -> ServedItem? {
        guard let episode = stored.episode(in: podcast), let file = services.downloads.file(of: stored, in: podcast)
        else {
            return nil
        }
        let ext = episode.fileExtension
        var info = stat()
        guard stat(file.final.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let path = DownloadLayout.name(podcast.downloadKey) + "/" + DownloadLayout.name(episode.id) + "." + ext
        return ServedItem(
            guid: stored.guid,
            title: stored.title,
            podcastTitle: podcast.title,
            date: stored.published,
            description: stored.summary,
            seconds: stored.seconds,
            mediaPath: path,
            length: Int64(info.st_size),
            type: Self.type(ofExtension: ext, declared: stored.audioType),
            artworkURL: podcast.artworkURL.map(URL.redacted),
            chaptersURL: stored.chaptersURL.map(URL.redacted),
            transcripts: stored.transcriptList.map { (URL.redacted($0.url.absoluteString), $0.type ?? "text/plain") }
        )
    }
}
