import Background
import Downloads
import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import Playback
import ShellKit
import Sync
import Synchronization

/// What one shell has loaded and selected: the podcast (and its subscription),
/// the results of the last `search`, `find` and `tracks`. Everything else (the
/// clients, the downloads, the library, sync) is a service in ``services``, built
/// once by the composition root and shared by every front end.
///
/// An actor, so that the download event printer and the command loop share it
/// safely.
public actor Session {
    /// The feature services this shell calls.
    public nonisolated let services: Services
    /// The podcast from the last successful `lookup`, `podcast N` or `subscribe`.
    public private(set) var podcast: Podcast?
    /// The loaded podcast's subscription, when it is one.
    private(set) var subscription: LoadedSubscription?
    /// The results of the last `search`, for `open N`.
    private(set) var searchResults: [PodcastSearchResult] = []
    /// The hits of the last `find`, for `play fN`.
    private(set) var findHits: [SearchHit] = []
    /// The songs of the last `tracks`, for `preview N`.
    private(set) var tracks: [Track] = []

    public init(services: Services) {
        self.services = services
    }

    public nonisolated var configuration: Configuration { services.configuration }
    nonisolated var sources: SourcesService { services.sources }

    func searchTracks(term: String, limit: Int) async throws(FeedError) -> [Track] {
        let results = try await sources.itunes.searchTracks(term: term, limit: limit)
        tracks = results
        return results
    }

    /// Searches Apple's directory or the Podcast Index; the results are what
    /// `open N` numbers.
    func searchPodcasts(
        term: String,
        limit: Int,
        in directory: PodcastSearchResult.Directory
    ) async throws(ShellError) -> [PodcastSearchResult] {
        let index = directory == .podcastIndex ? try await sources.podcastIndex() : nil
        do throws(FeedError) {
            let results =
                if let index {
                    try await index.search(term: term, limit: limit)
                } else {
                    try await sources.itunes.searchPodcasts(term: term, limit: limit)
                }
            searchResults = results
            return results
        } catch {
            throw .feed(error)
        }
    }

    /// What ``selectEpisodes(_:synopsis:)`` found.
    struct EpisodeSelection: Sendable {
        let podcast: Podcast
        /// The library's view of `podcast`, when it is a subscription.
        let subscription: LoadedSubscription?
        /// 1-based, newest first, as `episodes` numbers them.
        let numbers: [Int]
        /// `P:` when the selector named a subscription; empty for the loaded podcast.
        let prefix: String
    }

    /// Loads a podcast; it replaces the loaded one only when the lookup succeeds.
    @discardableResult
    public func lookup(id: Int64, limit: Int) async throws(FeedError) -> Podcast {
        let podcast = try await sources.itunes.lookup(id: id, limit: limit)
        load(podcast)
        return podcast
    }

    /// Makes `podcast` the loaded one (its episodes are what selectors number), with
    /// its subscription when it is one.
    func load(_ podcast: Podcast, subscription: LoadedSubscription? = nil) {
        self.podcast = podcast
        self.subscription = subscription
    }

    /// Forgets the loaded subscription when it was `podcastID` (unsubscribed); the
    /// podcast stays loaded.
    func forgetSubscription(_ podcastID: Int64) {
        if subscription?.podcast.id == podcastID { subscription = nil }
    }

    /// The loaded podcast, or the error that says to load one.
    func requirePodcast() throws(ShellError) -> Podcast {
        guard let podcast else { throw .noPodcast }
        return podcast
    }

    /// The download of episode `number` (1-based) of `podcast`, of the loaded
    /// subscription unless `subscription` is given (labelled `prefix` + number).
    func downloadRequest(
        number: Int,
        of podcast: Podcast,
        subscription: LoadedSubscription? = nil,
        prefix: String = ""
    ) -> DownloadRequest {
        services.downloads.request(
            number: number,
            of: podcast,
            subscription: subscription ?? self.subscription,
            prefix: prefix
        )
    }

    /// `3 Title`, for messages about a download.
    nonisolated func label(for id: DownloadID) -> DownloadLabel {
        services.downloads.label(for: id)
    }

    /// The status of the loaded podcast's episodes `numbers` (1-based), or of
    /// every one when nil: a listing of ten of 200 000 reads ten.
    func statuses(of numbers: [Int]? = nil) async -> [Int64: EpisodeStatus] {
        guard let podcast else { return [:] }
        var statuses: [Int64: EpisodeStatus] = [:]
        for index in numbers.map({ $0.map { $0 - 1 } }) ?? Array(podcast.episodes.indices)
        where podcast.episodes.indices.contains(index) {
            let episode = podcast.episodes[index]
            statuses[episode.id] = await services.downloads.status(of: episode, in: podcast)
        }
        return statuses
    }

    /// The downloads a selector names: episodes of the loaded podcast or of
    /// subscription P, the library's new episodes, or songs of the last `tracks`
    /// list. Numbers past the list are a usage error naming them
    /// (`no episode 9 (1-5)`), with `synopsis` (by default the download commands').
    func targets(_ selector: Selector, verb: String, synopsis: String? = nil) async throws(ShellError)
        -> [DownloadTarget]
    {
        let synopsis = synopsis ?? "\(verb) \(Command.selectorName)"
        switch selector.scope {
        case .new:
            return try await services.downloads.newTargetsForShell()
        case .queue:
            return try await queueTargets()
        case .playlist(let name):
            return try await playlistTargets(name)
        case .hits:
            return try await hitTargets(selector, synopsis: synopsis).map(\.target)
        case .bookmarks:
            return try await bookmarkTargets(selector, synopsis: synopsis).map(\.target)
        case .songs:
            guard !tracks.isEmpty else { throw .noTracks }
            let numbers = try Self.numbers(selector, count: tracks.count, noun: "song", synopsis: synopsis)
            return try numbers.map { number throws(ShellError) in
                let track = tracks[number - 1]
                guard let url = track.previewURL else {
                    throw .noPreview(song: "t\(number) \(track.title)")
                }
                let request = services.downloads.previewRequest(number: number, of: track, url: url)
                return DownloadTarget(name: services.downloads.name(for: request.id), request: request)
            }
        case .loaded, .subscription:
            let selection = try await selectEpisodes(selector, synopsis: synopsis)
            return selection.numbers.map { number in
                let request = downloadRequest(
                    number: number,
                    of: selection.podcast,
                    subscription: selection.subscription,
                    prefix: selection.prefix
                )
                return DownloadTarget(name: services.downloads.name(for: request.id), request: request)
            }
        }
    }

    /// Episodes a selector names: of the loaded podcast (`3`, `2-4`, `1,3`, `all`),
    /// or of subscription P with no podcast loaded (`P:3`, `P:2-4`, `P:all`), P
    /// being the number `podcasts` shows. A usage error names the bad part.
    func selectEpisodes(_ selector: Selector, synopsis: String) async throws(ShellError) -> EpisodeSelection {
        var podcast: Podcast
        var subscription = self.subscription
        var prefix = ""
        switch selector.scope {
        case .subscription(let number):
            let stored = try await services.library.subscription(numbered: String(number), synopsis: synopsis)
            if let loaded = self.subscription, loaded.podcast.id == stored.id, let current = self.podcast {
                podcast = current
            } else {
                (podcast, subscription) = try await services.library.viewForShell(of: stored)
            }
            prefix = "\(stored.number):"
        case .loaded:
            podcast = try requirePodcast()
        case .new, .songs, .queue, .hits, .bookmarks, .playlist:
            throw .usage("'\(selector.text)' names no episodes of a podcast", synopsis: synopsis)
        }
        switch selector.numbers(count: podcast.episodes.count) {
        case .success(let numbers):
            return EpisodeSelection(podcast: podcast, subscription: subscription, numbers: numbers, prefix: prefix)
        case .failure(let problem):
            let owner = prefix.isEmpty ? nil : podcast.title
            throw .usage(
                "\(problem.description(noun: "episode", count: podcast.episodes.count, prefix: prefix, owner: owner))",
                synopsis: synopsis
            )
        }
    }

    /// The one episode or song `selector` names for `play`, and where it starts: a
    /// transcript hit (`fN`) from where its words were said, unless `start` says
    /// otherwise.
    func playTarget(
        _ selector: Selector,
        start: PlayStart,
        synopsis: String
    ) async throws(ShellError) -> (DownloadTarget, PlayStart) {
        if selector.scope == .hits {
            guard let hit = try await hitTargets(selector, synopsis: synopsis).first else {
                throw .usage(synopsis: synopsis)
            }
            return (hit.target, start == .saved ? hit.at.map(PlayStart.at) ?? start : start)
        }
        if selector.scope == .bookmarks {
            guard let mark = try await bookmarkTargets(selector, synopsis: synopsis).first else {
                throw .usage(synopsis: synopsis)
            }
            return (mark.target, start == .saved ? .at(mark.at) : start)
        }
        // One episode or song: the forms the argument takes select no more.
        guard let first = try await targets(selector, verb: "play", synopsis: synopsis).first else {
            throw .usage(synopsis: synopsis)
        }
        return (first, start)
    }

    /// Plays `plan` (see ``ListeningService/play(_:terminal:events:)``), then
    /// reads the loaded subscription again, which shows the new position.
    func play(
        _ plan: PlaybackPlan,
        terminal: Bool,
        events: @escaping @Sendable (PlaybackEvent) -> Void
    ) async throws(PlaybackError) -> (end: PlaybackEnd, record: PositionRecord) {
        let played = try await services.listening.play(plan, terminal: terminal, events: events)
        if played.record == .saved, let loaded = subscription?.podcast {
            // In a task of its own: after Ctrl-C (this task cancelled) the loaded
            // subscription still shows where playback stopped.
            await Task { _ = try? await self.loadSubscription(loaded) }.value
        }
        return played
    }

    /// Pauses running downloads (keeping their .part files) and releases the network.
    public func close() async {
        await services.close()
    }
}

extension Session {
    /// Keeps the hits of a `find` for `play fN`.
    func remember(_ hits: [SearchHit]) {
        findHits = hits
    }

    /// The episodes of the hits `selector` names (`f2`), with the time each hit
    /// was said (nil for a title or show-note hit). A usage error names a number
    /// past the hits.
    func hitTargets(_ selector: Selector, synopsis: String) async throws(ShellError) -> [(
        target: DownloadTarget, at: Double?
    )] {
        guard !findHits.isEmpty else {
            throw .usage("no hits to play: 'find WORDS' lists some", synopsis: synopsis)
        }
        let numbers = try Self.numbers(selector, count: findHits.count, noun: "hit", prefix: "f", synopsis: synopsis)
        let hits = numbers.map { findHits[$0 - 1] }
        let targets = try await services.downloads.targetsForShell(of: hits.map(\.episodeRef))
        let at = Dictionary(hits.map { ($0.episodeRef, $0.at) }) { first, _ in first }
        return targets.map { ($0, $0.subject.flatMap { at[$0.episode] ?? nil }) }
    }

    /// The 1-based numbers `selector` names of a list of `count` (`t2`, `f1-3`,
    /// `b2`), or the usage error that names the first past it (`no hit f9 (1-3)`).
    private static func numbers(
        _ selector: Selector,
        count: Int,
        noun: String,
        prefix: String = "",
        synopsis: String
    ) throws(ShellError) -> [Int] {
        switch selector.numbers(count: count) {
        case .success(let selected): return selected
        case .failure(let problem):
            throw .usage("\(problem.description(noun: noun, count: count, prefix: prefix))", synopsis: synopsis)
        }
    }

    /// The episodes of the bookmarks `selector` names (`b2`, as `bookmarks`
    /// numbers them), with each bookmark's time. A usage error names a number
    /// past them, or a bookmark whose episode left the library.
    func bookmarkTargets(_ selector: Selector, synopsis: String) async throws(ShellError) -> [(
        target: DownloadTarget, at: Double
    )] {
        let marks =
            if let library = try libraryIfMade() {
                try await libraryCall { () async throws(LibraryError) in try await library.bookmarks() }
            } else {
                [Bookmark]()
            }
        guard !marks.isEmpty else { throw .usage(.noBookmarks, synopsis: synopsis) }
        let numbers = try Self.numbers(
            selector,
            count: marks.count,
            noun: "bookmark",
            prefix: "b",
            synopsis: synopsis
        )
        var selected: [(EpisodeRef, Double)] = []
        for number in numbers {
            guard let ref = marks[number - 1].episodeRef else {
                throw .usage(.bookmarkWithoutEpisode(number), synopsis: synopsis)
            }
            selected.append((ref, marks[number - 1].at))
        }
        let targets = try await services.downloads.targetsForShell(of: selected.map(\.0))
        return zip(targets, selected).map { ($0, $1.1) }
    }

    /// The play queue's episodes, in its order, labelled `P:E` (none without a
    /// library).
    /// The episodes smart playlist `name` holds now, in its order.
    func playlistTargets(_ name: String) async throws(ShellError) -> [DownloadTarget] {
        let services = self.services
        let episodes = try await coreCall { try await services.playlist(named: name).episodes }
        return try await services.downloads.targetsForShell(of: episodes.map(\.episodeRef))
    }

    func queueTargets() async throws(ShellError) -> [DownloadTarget] {
        guard let library = try libraryIfMade() else { return [] }
        let entries = try await libraryCall { () async throws(LibraryError) in try await library.queue() }
        return try await services.downloads.targetsForShell(of: entries.map(\.episodeRef))
    }

}

extension Session {
    /// The library, opened (and migrated) the first time a command needs it.
    nonisolated func library() throws(ShellError) -> Library {
        try services.library.make()
    }

    /// The library when there is one (opened if needed); nil, without making one,
    /// when its file does not exist: for what only reads it (settings, the away
    /// report).
    nonisolated func existingLibrary() -> Library? {
        services.library.existing()
    }

    /// The library when its file exists (opened if needed, failing as
    /// ``library()`` does); nil, without making one, when it does not: for
    /// commands that only read it (`find`, `queue`).
    nonisolated func libraryIfMade() throws(ShellError) -> Library? {
        try services.library.ifMade()
    }

    /// Makes subscription `podcast` the loaded podcast, with its whole history.
    @discardableResult
    func loadSubscription(_ podcast: StoredPodcast) async throws(ShellError) -> Podcast {
        let (loaded, subscription) = try await services.library.viewForShell(of: podcast)
        load(loaded, subscription: subscription)
        return loaded
    }

    /// The subscriptions' numbers and titles, for completion; none until a command
    /// has opened the library (completion never opens it).
    func subscriptionTitles() async -> [(number: Int64, title: String)] {
        guard let opened = services.library.opened else { return [] }
        return (try? await opened.podcastTitles().map { ($0.number, SafeText.line($0.title)) }) ?? []
    }

    /// The smart playlists' names, for completion: read only from a library a
    /// command opened, as ``subscriptionTitles()``, so that starting opens none.
    func playlistNames() async -> [String] {
        guard let opened = services.library.opened else { return [] }
        return (try? await opened.playlists().map(\.name)) ?? []
    }

    /// The library's marks of the loaded podcast's episodes, when it is a
    /// subscription.
    var marks: EpisodeMarksLookup { subscription?.marks ?? [:] }
}

extension Session {
    /// The library episodes a selector names: `new`, or numbers of the loaded
    /// subscription or of subscription P, in the order selected.
    func libraryEpisodeIDs(_ selector: Selector, synopsis: String) async throws(ShellError) -> [Int64] {
        if selector.scope == .new { return try await services.library.newEpisodes().compactMap(\.episode.id) }
        if selector.scope == .loaded, subscription == nil { throw .noSubscriptionLoaded }
        let selection = try await selectEpisodes(selector, synopsis: synopsis)
        guard let subscription = selection.subscription else { throw .noSubscriptionLoaded }
        return selection.numbers.compactMap { subscription.marks[selection.podcast.episodes[$0 - 1].id]?.libraryID }
    }
}

extension Session {
    /// Reads the feed at `url` and loads it as the podcast (not a subscription):
    /// its newest `limit` episodes. A feed already subscribed to loads as the
    /// subscription, as `podcast N` would.
    func loadFeed(_ url: URL, limit: Int) async throws(ShellError) -> Podcast {
        if let library = existingLibrary(),
            let stored = try? await library.podcast(feedURL: url)
        {
            return try await loadSubscription(stored)
        }
        let outcome: FeedClient.Outcome
        do throws(FeedError) {
            outcome = try await sources.feeds.fetch(url)
        } catch {
            throw .feed(error)
        }
        switch outcome {
        case .fetched(let fetched, _, _, _):
            let podcast = Podcast(feed: fetched, url: url, limit: limit)
            load(podcast)
            return podcast
        case .gone:
            throw .feed(.httpStatus(410, url: url))
        case .notModified:
            // Asked without validators: a 304 is the server's mistake.
            throw .feed(.httpStatus(304, url: url))
        }
    }
}

extension Session {
    /// One sync (see ``SyncService/sync(changed:)``); the loaded subscription is
    /// read again after, or forgotten when the sync removed it.
    func sync() async throws(ShellError) -> SyncReport {
        try await services.sync.sync { change in await self.follow(change) }
    }

    /// With `set sync auto on` and an account: queues a sync and returns at once;
    /// `then` gets its outcome (see ``SyncService/syncAutomatically(changed:then:)``).
    func syncAutomatically(then: @escaping @Sendable (Result<SyncReport, ShellError>) async -> Void) async {
        await services.sync.syncAutomatically(changed: { change in await self.follow(change) }, then: then)
    }

    /// Keeps the loaded subscription as a sync left it.
    private func follow(_ change: SyncChange) async {
        switch change {
        case .unsubscribed(let id):
            forgetSubscription(id)
        case .synced(let library):
            if let loaded = subscription?.podcast, let fresh = try? await library.podcast(loaded.id ?? -1) {
                _ = try? await loadSubscription(fresh)
            } else if let loaded = subscription?.podcast {
                forgetSubscription(loaded.id ?? -1)
            }
        }
    }
}

extension Session {
    /// Updates `podcasts` (see ``Services/update(_:progress:)``) and reads the
    /// loaded subscription again, which shows what arrived.
    func updateLibrary(
        _ podcasts: [StoredPodcast],
        progress: @escaping @Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void
    ) async throws(ShellError) -> UpdateReport {
        let report: UpdateReport
        do throws(LibraryError) {
            report = try await services.update(podcasts, progress: progress)
        } catch {
            throw .library(error)
        }
        if let loaded = subscription?.podcast, let library = services.library.opened,
            let fresh = try? await library.podcast(loaded.id ?? -1)
        {
            try await loadSubscription(fresh)
        }
        return report
    }
}
