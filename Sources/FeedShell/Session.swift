import Downloads
import FeedKit
import Foundation

/// The state a shell works on: the loaded podcast, the clients that load things and
/// the downloads running in the background.
///
/// An actor, so that the download event printer and the command loop share it
/// safely.
public actor Session {
    public nonisolated let configuration: ShellConfiguration
    let http: HTTPFetcher
    let itunes: ITunesClient
    let posts: PostsClient
    let layout: DownloadLayout
    /// The engine; its events are printed by the shell.
    public nonisolated let downloads: DownloadManager
    /// The podcast from the last successful `lookup`.
    public private(set) var podcast: Podcast?
    /// The results of the last `search`, for `open N`.
    private(set) var searchResults: [PodcastSearchResult] = []

    func searchPodcasts(term: String, limit: Int) async throws(FeedError) -> [PodcastSearchResult] {
        let results = try await itunes.searchPodcasts(term: term, limit: limit)
        searchResults = results
        return results
    }

    /// How to name each download in messages: number and title when it started.
    private var labels: [String: String] = [:]

    public init(configuration: ShellConfiguration) {
        self.configuration = configuration
        http = HTTPFetcher(settings: configuration.http)
        itunes = ITunesClient(baseURL: configuration.endpoints.itunes, http: http)
        posts = PostsClient(baseURL: configuration.endpoints.posts, http: http)
        layout = DownloadLayout(root: configuration.downloadDirectory)
        let transport: any DownloadTransport =
            switch configuration.engine {
            case .ahc: AsyncHTTPClientTransport(userAgent: configuration.http.userAgent)
            case .urlsession: URLSessionTransport(userAgent: configuration.http.userAgent)
            }
        downloads = DownloadManager(transport: transport, maxConcurrent: configuration.maxConcurrent)
    }

    /// Loads a podcast; it replaces the loaded one only when the lookup succeeds.
    @discardableResult
    public func lookup(id: Int64, limit: Int) async throws(FeedError) -> Podcast {
        let podcast = try await itunes.lookup(id: id, limit: limit)
        self.podcast = podcast
        return podcast
    }

    /// The loaded podcast, or the error that says to load one.
    func requirePodcast() throws(ShellError) -> Podcast {
        guard let podcast else { throw .noPodcast }
        return podcast
    }

    /// The download of episode `number` (1-based) of the loaded podcast.
    func downloadRequest(number: Int, of podcast: Podcast) -> DownloadRequest {
        let episode = podcast.episodes[number - 1]
        let id = String(episode.id)
        labels[id] = "\(number) \(TerminalText.line(episode.title))"
        return DownloadRequest(
            id: id,
            url: episode.audioURL,
            file: layout.file(podcastID: podcast.id, episodeID: episode.id, extension: episode.fileExtension)
        )
    }

    /// `3 Title`, for messages about a download.
    func label(for id: String) -> String {
        labels[id] ?? id
    }

    /// The status of every episode of the loaded podcast.
    func statuses() async -> [Int64: EpisodeStatus] {
        guard let podcast else { return [:] }
        var statuses: [Int64: EpisodeStatus] = [:]
        for episode in podcast.episodes {
            statuses[episode.id] = await status(of: episode, in: podcast)
        }
        return statuses
    }

    func status(of episode: Episode, in podcast: Podcast) async -> EpisodeStatus {
        let file = layout.file(podcastID: podcast.id, episodeID: episode.id, extension: episode.fileExtension)
        return EpisodeStatus(engine: await downloads.state(of: String(episode.id)), disk: layout.status(of: file))
    }

    /// Pauses running downloads (keeping their .part files) and releases the network.
    public func close() async {
        await downloads.shutdown()
        try? await http.shutdown()
    }
}
