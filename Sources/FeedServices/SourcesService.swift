import FeedKit
import Foundation
import HTTPSupport
import Library
import Synchronization

/// What the services reach the web through: the API clients' GETs, and feeds.
/// The composition root builds the real ones over the network; a test of a
/// command or a service hands in-memory fakes instead, where HTTP is not what is
/// tested.
public struct Network: Sendable {
    public let http: any HTTPFetching
    public let feeds: any FeedFetching

    public init(http: any HTTPFetching, feeds: any FeedFetching) {
        self.http = http
        self.feeds = feeds
    }
}

/// The clients that load things from outside: Apple's directory, posts, the Met,
/// feeds, images and chapters, over one pool of HTTP clients.
public final class SourcesService: Sendable {
    package let http: any HTTPFetching
    package let configuration: Configuration
    /// Where the Podcast Index key and secret may be set.
    package let library: LibraryService
    /// The pool the API clients and the downloads share, shut down with this.
    private let clients: HTTPClientPool
    package let itunes: ITunesClient
    package let posts: PostsClient
    package let met: MetClient
    /// Feeds are fetched by a client of their own (redirects seen, gzip accepted).
    package let feeds: any FeedFetching
    /// Where `image` keeps what it fetched: `{cache-dir}/images/`.
    package let images: ImageCache
    /// Where chapters are kept once read: `{cache-dir}/chapters/`.
    package let chapters: ChaptersCache
    /// The sync client's pool, whose clients follow no redirect (the sync client
    /// follows a move itself, an upload's as an upload), made on first use.
    private let syncPool: Mutex<HTTPClientPool?> = Mutex(nil)
    private let makeSyncPool: @Sendable () -> HTTPClientPool
    /// The `met search` in progress, which a new one cancels, and how many began.
    private let metSearch = Mutex<(current: (id: Int, cancel: @Sendable () -> Void)?, count: Int)>((nil, 0))

    /// The podcast's artwork when the image cache holds it as JPEG or PNG (what
    /// a tag's cover and a desktop's now-playing take).
    package func cachedArtwork(of podcast: StoredPodcast) -> URL? {
        guard let link = podcast.artworkURL, let url = URL(string: link), let cached = images.cached(url),
            let type = cached.contentType, type == "image/jpeg" || type == "image/png"
        else { return nil }
        return images.file(for: url).final
    }

    /// How many HTTP clients the API clients, feeds, downloads and sync have
    /// made: none until something is fetched.
    package var clientsMade: Int {
        clients.clientsMade + (syncPool.withLock { $0?.clientsMade } ?? 0)
    }

    /// The clients over `network`'s fetchers, or (without one) over `clients`.
    package init(
        configuration: Configuration,
        clients: HTTPClientPool,
        library: LibraryService,
        network: Network? = nil
    ) {
        self.configuration = configuration
        self.library = library
        makeSyncPool = {
            HTTPClientPool(
                connectTimeout: configuration.http.connectTimeout,
                readTimeout: configuration.http.readTimeout,
                followRedirects: false,
                proxies: configuration.proxies
            )
        }
        self.clients = clients
        http = network?.http ?? HTTPFetcher(clients: clients, settings: configuration.http)
        itunes = ITunesClient(baseURL: configuration.endpoints.itunes, http: http)
        posts = PostsClient(baseURL: configuration.endpoints.posts, http: http)
        met = MetClient(baseURL: configuration.endpoints.met, http: http)
        feeds = network?.feeds ?? FeedClient(settings: configuration.http, proxies: configuration.proxies)
        images = ImageCache(directory: configuration.cacheDirectory.appendingPathComponent("images", isDirectory: true))
        chapters = ChaptersCache(
            directory: configuration.cacheDirectory.appendingPathComponent("chapters", isDirectory: true),
            http: http
        )
    }

    /// Runs `body` as the one `met search` in progress: one still running (from
    /// another task) is cancelled first, and `body` is cancelled when the calling task
    /// is. Nil when `body` was cancelled, by either.
    package func runMetSearch<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T? {
        let task = Task { await body() }
        let id = metSearch.withLock { state in
            state.current?.cancel()
            state.count += 1
            state.current = (state.count, { task.cancel() })
            return state.count
        }
        let value = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        metSearch.withLock { state in
            if state.current?.id == id { state.current = nil }
        }
        return task.isCancelled ? nil : value
    }

    /// The pool the sync client sends through.
    package var syncClients: HTTPClientPool {
        syncPool.withLock { pool in
            if let pool { return pool }
            let made = makeSyncPool()
            pool = made
            return made
        }
    }

    package func shutdown() async {
        try? await http.shutdown()
        try? await clients.shutdown()
        try? await feeds.shutdown()
        try? await syncPool.withLock { $0 }?.shutdown()
    }
}
