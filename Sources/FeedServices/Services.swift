import Downloads
import FeedKit
import Foundation
import HTTPSupport
import Processes

/// What feedsh can do, built once by the composition root (the executable; a test
/// builds its own) and handed to a front end: the shell, or the background
/// feedsh. Each service owns its feature's state; the ``Session`` keeps only what
/// a shell has loaded and selected.
public struct Services: Sendable {
    public let configuration: Configuration
    /// The API clients (iTunes, Podcast Index, posts, the Met), feeds, images
    /// and chapters.
    public let sources: SourcesService
    /// The download engine, the one view of every download, and how each is named.
    public let downloads: DownloadsService
    /// The library file, opened once, and its settings.
    public let library: LibraryService
    /// One sync at a time.
    public let sync: SyncService
    /// The player, positions and what plays at which speed.
    public let listening: ListeningService

    /// Builds the clients, the download engine and the services for
    /// `configuration`: one pool of HTTP clients (one a proxy) serves the API
    /// clients and the downloads. With `network`, the API clients and feeds go
    /// through its fetchers instead (a test's fakes).
    public init(configuration: Configuration, network: Network? = nil) {
        self.configuration = configuration
        let clients = HTTPClientPool(
            connectTimeout: configuration.http.connectTimeout,
            readTimeout: configuration.http.readTimeout,
            proxies: configuration.proxies
        )
        library = LibraryService(
            file: configuration.libraryFile,
            overrides: configuration.settingOverrides,
            connections: configuration.libraryConnections
        )
        sources = SourcesService(configuration: configuration, clients: clients, library: library, network: network)
        let transport: any DownloadTransport =
            switch configuration.engine {
            case .ahc: AsyncHTTPClientTransport(clients: clients, userAgent: configuration.http.userAgent)
            case .urlsession:
                // In a process per request, feedsh run again as URLSessionHelper: libcurl is
                // loaded by it, not by the shell.
                HelperTransport(
                    name: "urlsession",
                    program: Helpers.runningProgram,
                    arguments: [HelperWire.urlSessionArgument],
                    userAgent: configuration.http.userAgent
                )
            }
        downloads = DownloadsService(
            layout: DownloadLayout(root: configuration.downloadDirectory),
            engine: DownloadManager(
                transport: transport,
                maxConcurrent: configuration.maxConcurrent,
                maxFileSize: configuration.maxFileSize ?? DownloadManager.defaultMaxFileSize
            ),
            rateLimit: configuration.rateLimit,
            library: library,
            configuration: configuration
        )
        listening = ListeningService(
            configuration: configuration,
            library: library,
            sources: sources
        )
        sync = SyncService(configuration: configuration, library: library, sources: sources)
    }

    /// Pauses running downloads (keeping their .part files), releases the
    /// network and closes the library.
    public func close() async {
        await downloads.engine.shutdown()
        await sources.shutdown()
        library.close()
    }
}
