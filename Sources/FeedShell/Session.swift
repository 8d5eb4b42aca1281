import Background
import Downloads
import FeedKit
import Foundation
import HTTPSupport
import Library
import PlainText
import ShellKit
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

    public nonisolated var configuration: ShellConfiguration { services.configuration }
    nonisolated var sources: SourcesService { services.sources }
    /// The engine that runs this process's downloads.
    public nonisolated var downloads: DownloadManager { services.downloads.engine }
    nonisolated var board: DownloadBoard<[CleanupDeletion]> { services.downloads.board }
    nonisolated var layout: DownloadLayout { services.downloads.layout }

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
        let index = directory == .podcastIndex ? try await podcastIndex() : nil
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

    /// The background feedsh of this library, once connected.
    var background: BackgroundLink? {
        get { services.downloads.background.link.withLock { $0 } }
        set { services.downloads.background.link.withLock { $0 = newValue } }
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

    /// A download finished: a library episode records it, and cleanup runs for its
    /// podcast. Returns the files cleanup deleted.
    func downloadCompleted(_ id: String) async -> [CleanupDeletion] {
        guard let episode = services.downloads.knownLabel(for: id)?.episode, let library = services.library.opened
        else { return [] }
        try? await library.markDownloaded(episode.episode)
        return await cleanUp([episode.podcast])
    }

    /// The loaded podcast, or the error that says to load one.
    func requirePodcast() throws(ShellError) -> Podcast {
        guard let podcast else { throw .noPodcast }
        return podcast
    }

    /// The download of episode `number` (1-based) of the loaded podcast, or of
    /// `subscription` when given (labelled `prefix` + number: `2:3`).
    func downloadRequest(
        number: Int,
        of podcast: Podcast,
        subscription: LoadedSubscription? = nil,
        prefix: String = ""
    ) -> DownloadRequest {
        let subscription = subscription ?? self.subscription
        let episode = podcast.episodes[number - 1]
        let libraryID = subscription?.marks.marks(at: number - 1, id: episode.id)?.libraryID
        return register(
            DownloadLabel(
                number: prefix + String(number),
                title: episode.title,
                // Its address from any shell: P:E for a subscription's episode.
                ref: subscription.map { "\($0.podcast.number):\(number)" },
                podcast: podcast.title,
                episode: subscription?.podcast.id.flatMap { podcastID in
                    libraryID.map { EpisodeRef(podcast: podcastID, episode: $0) }
                }
            ),
            for: DownloadRequest(
                id: String(episode.id),
                url: episode.audioURL,
                file: file(of: episode, in: podcast),
                declaredLength: episode.declaredLength,
                authorization: subscription?.authorization(for: episode.audioURL)
            )
        )
    }

    /// Keeps how to name the download `request` and which library episode it is:
    /// every route that makes a download request makes it through here, so a
    /// finished download, `delete` and `play` find its episode whichever words
    /// named it.
    private func register(_ label: DownloadLabel, for request: DownloadRequest) -> DownloadRequest {
        services.downloads.keep(label, for: request.id)
        return request
    }

    /// The download target of a library episode resolved by identity (a `find`
    /// hit, a queue entry, a new episode): named by its `P:E`, with its
    /// subscription's credentials on the feed's own origin. Nil when its
    /// enclosure URL is unusable.
    func target(
        of resolved: ResolvedLibraryEpisode,
        credentials: FeedCredentials?
    ) -> DownloadTarget? {
        guard let episode = resolved.stored.episode(in: resolved.podcast) else { return nil }
        let label = DownloadLabel(
            number: resolved.ref,
            title: episode.title,
            ref: resolved.ref,
            podcast: resolved.podcast.title,
            episode: resolved.episodeRef
        )
        let request = register(
            label,
            for: DownloadRequest(
                id: String(episode.id),
                url: episode.audioURL,
                file: layout.file(
                    podcastID: resolved.podcast.downloadKey,
                    episodeID: episode.id,
                    extension: episode.fileExtension
                ),
                declaredLength: episode.declaredLength,
                authorization: resolved.podcast.authorization(credentials, for: episode.audioURL)
            )
        )
        return DownloadTarget(label: label, request: request)
    }

    /// The download targets of library episodes named by identity, in the order
    /// given (those gone since are left out).
    func targets(of refs: [EpisodeRef]) async throws(ShellError) -> [DownloadTarget] {
        guard !refs.isEmpty, let library = try libraryIfMade() else { return [] }
        let (resolved, credentials) = try await libraryCall { () async throws(LibraryError) in
            (try await library.resolve(refs), try await library.allCredentials())
        }
        return resolved.compactMap { target(of: $0, credentials: credentials[$0.podcastNumber]) }
    }

    /// Where an episode's file goes.
    nonisolated func file(of episode: Episode, in podcast: Podcast) -> DownloadLayout.File {
        layout.file(podcastID: podcast.id, episodeID: episode.id, extension: episode.fileExtension)
    }

    /// The download of a song's preview: `{download-dir}/previews/{trackId}.{ext}`,
    /// labelled `tN` after its number in the `tracks` list.
    func previewRequest(number: Int, of track: Track, url: URL) -> DownloadRequest {
        register(
            DownloadLabel(number: "t\(number)", title: track.title),
            for: DownloadRequest(
                id: "preview-\(track.id)",
                url: url,
                file: DownloadLayout.File(
                    final: layout.root.appendingPathComponent("previews", isDirectory: true)
                        .appendingPathComponent("\(track.id).\(track.previewExtension)")
                )
            )
        )
    }

    /// The status of a download, from the engine, the background process or the disk.
    func status(of request: DownloadRequest) async -> EpisodeStatus {
        EpisodeStatus(engine: await board.state(of: request.id), disk: layout.status(of: request.file))
    }

    /// `3 Title`, for messages about a download.
    nonisolated func label(for id: String) -> DownloadLabel {
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
            statuses[episode.id] = await status(of: episode, in: podcast)
        }
        return statuses
    }

    func status(of episode: Episode, in podcast: Podcast) async -> EpisodeStatus {
        EpisodeStatus(
            engine: await board.state(of: String(episode.id)),
            disk: layout.status(of: file(of: episode, in: podcast))
        )
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
            return try await newTargets()
        case .queue:
            return try await queueTargets()
        case .hits:
            return try await hitTargets(selector, synopsis: synopsis).map(\.target)
        case .songs:
            guard !tracks.isEmpty else { throw .noTracks }
            let numbers: [Int]
            switch selector.numbers(count: tracks.count) {
            case .success(let selected): numbers = selected
            case .failure(let problem):
                throw .usage(
                    "\(problem.description(noun: "song", count: tracks.count))",
                    synopsis: synopsis
                )
            }
            return try numbers.map { number throws(ShellError) in
                let track = tracks[number - 1]
                guard let url = track.previewURL else {
                    throw .noPreview(song: "t\(number) \(track.title)")
                }
                let request = previewRequest(number: number, of: track, url: url)
                return DownloadTarget(label: label(for: request.id), request: request)
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
                return DownloadTarget(label: label(for: request.id), request: request)
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
            let stored = try await self.subscription(numbered: String(number), synopsis: synopsis)
            if let loaded = self.subscription, loaded.podcast.id == stored.id, let current = self.podcast {
                podcast = current
            } else {
                (podcast, subscription) = try await view(of: stored)
            }
            prefix = "\(stored.number):"
        case .loaded:
            podcast = try requirePodcast()
        case .new, .songs, .queue, .hits:
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
        let numbers: [Int]
        switch selector.numbers(count: findHits.count) {
        case .success(let selected): numbers = selected
        case .failure(let problem):
            throw .usage(
                "\(problem.description(noun: "hit", count: findHits.count, prefix: "f"))",
                synopsis: synopsis
            )
        }
        let hits = numbers.map { findHits[$0 - 1] }
        let targets = try await targets(of: hits.map(\.episodeRef))
        let at = Dictionary(hits.map { ($0.episodeRef, $0.at) }) { first, _ in first }
        return targets.map { ($0, $0.label.episode.flatMap { at[$0] ?? nil }) }
    }

    /// The play queue's episodes, in its order, labelled `P:E` (none without a
    /// library).
    func queueTargets() async throws(ShellError) -> [DownloadTarget] {
        guard let library = try libraryIfMade() else { return [] }
        let entries = try await libraryCall { () async throws(LibraryError) in try await library.queue() }
        return try await targets(of: entries.map(\.episodeRef))
    }

    /// The downloads of the library's new episodes (of `podcastIDs` when given),
    /// each named by its `P:E` as every table names it.
    func newTargets(of podcastIDs: Set<Int64>? = nil) async throws(ShellError) -> [DownloadTarget] {
        let fresh = try await newEpisodes().filter { podcastIDs?.contains($0.podcast.id ?? -1) ?? true }
        return try await targets(
            of: fresh.compactMap { pair in
                guard let podcast = pair.podcast.id, let episode = pair.episode.id else { return nil }
                return EpisodeRef(podcast: podcast, episode: episode)
            }
        )
    }
}

/// One download a command acts on: an episode or a song's preview.
struct DownloadTarget: Sendable {
    /// How the shell names it: `3`, `2:3` or `t2`, its title, and the library
    /// episode it is (``DownloadLabel/episode``).
    let label: DownloadLabel
    let request: DownloadRequest
}
