import Downloads
import FeedKit
import Foundation

/// The state a shell works on: the loaded podcast and the clients that load things.
///
/// An actor, so that background work (downloads, in a later step) and the command
/// loop can share it safely.
public actor Session {
    public nonisolated let configuration: ShellConfiguration
    let http: HTTPFetcher
    let itunes: ITunesClient
    let layout: DownloadLayout
    /// The podcast from the last successful `lookup`.
    public private(set) var podcast: Podcast?

    public init(configuration: ShellConfiguration) {
        self.configuration = configuration
        http = HTTPFetcher(settings: configuration.http)
        itunes = ITunesClient(baseURL: configuration.endpoints.itunes, http: http)
        layout = DownloadLayout(root: configuration.downloadDirectory)
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

    /// What is on disk for each episode of the loaded podcast.
    func statuses() -> [Int64: DownloadLayout.Status] {
        guard let podcast else { return [:] }
        var statuses: [Int64: DownloadLayout.Status] = [:]
        for episode in podcast.episodes {
            let file = layout.file(podcastID: podcast.id, episodeID: episode.id, extension: episode.fileExtension)
            statuses[episode.id] = layout.status(of: file)
        }
        return statuses
    }

    /// Releases the HTTP client's connections.
    public func close() async {
        try? await http.shutdown()
    }
}
