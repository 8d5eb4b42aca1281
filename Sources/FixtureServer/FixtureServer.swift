import FixtureData
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A loopback HTTP server that speaks the APIs feedsh talks to, from `Fixtures/`.
///
/// It is the test double for every network test in the project and the backend of
/// `feedsh --demo`. Routes:
/// - `GET /lookup?id=N&limit=L`: an iTunes lookup from `Fixtures/itunes/lookup-N.json`,
///   with every episode's audio URL pointing at this server; unknown ids get
///   `{"resultCount":0,"results":[]}` like Apple's.
/// - `GET|HEAD /media/PATH[?size=N]`: synthetic audio (see ``SyntheticMedia``) with a
///   strong ETag, Last-Modified, `Range` (206/416) and `If-Range`.
/// - `GET /api/1.0/search/byterm?q=TERM`: the Podcast Index, checking its
///   authentication headers (key ``podcastIndexKey``, secret ``podcastIndexSecret``).
/// - `/api/2/auth|devices|subscriptions|episodes/...`: the gpodder.net sync API
///   (password ``syncPassword``), see ``FixtureRoutes/registerSync(on:)``.
/// - any path behind `/fault/SPEC/`: the same with faults injected (see ``Fault``).
public final class FixtureServer: Sendable {
    /// The Podcast Index key this server accepts (`--demo` uses it).
    public static let podcastIndexKey = "FEEDSHDEMOKEY"
    /// Its secret.
    public static let podcastIndexSecret = "feedsh-demo-secret"
    /// The user name and password of `/feeds/private.xml` and `/private/media/`.
    public static let privateUser = "alice"
    public static let privatePassword = "p@ss:word"
    /// The password of every user of the sync API (`/api/2/`, any user name).
    public static let syncPassword = "fixture"

    /// Where and how to serve.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// Media bytes a second (nil: as fast as possible). `--demo` throttles so that
        /// progress is visible.
        public var mediaRate: Int?

        public init(host: String = "127.0.0.1", port: Int = 0, mediaRate: Int? = nil) {
            self.host = host
            self.port = port
            self.mediaRate = mediaRate
        }
    }

    /// The server's root, such as `http://127.0.0.1:41234`.
    public let baseURL: URL
    private let task: Task<Void, any Error>
    private let group: ServiceGroup
    private let routes: FixtureRoutes

    private init(baseURL: URL, task: Task<Void, any Error>, group: ServiceGroup, routes: FixtureRoutes) {
        self.baseURL = baseURL
        self.task = task
        self.group = group
        self.routes = routes
    }

    /// Starts serving and returns once the socket is bound.
    public static func start(_ configuration: Configuration = .init()) async throws -> FixtureServer {
        let routes = FixtureRoutes(mediaRate: configuration.mediaRate)
        var logger = Logger(label: "feedsh.fixture-server")
        logger.logLevel = .critical  // a stop that has to cancel logs "cancelled"; expected
        let (ports, portsContinuation) = AsyncStream<Int>.makeStream()
        let router = Router(context: FixtureRequestContext.self)
        router.add(middleware: NoRouteMiddleware())
        routes.register(on: router)
        let routed = router.buildResponder()
        let faults = FaultMiddleware(routes: routes)
        let app = Application(
            responder: CallbackResponder { (request: Request, context: FixtureRequestContext) in
                try await faults.handle(request, context: context) { request, context in
                    try await routed.respond(to: request, context: context)
                }
            },
            server: .http1(configuration: .init(additionalChannelHandlers: [CloseDelimitedInstaller()])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                portsContinuation.yield(channel.localAddress?.port ?? 0)
                portsContinuation.finish()
            },
            logger: logger
        )
        var shutdown = ServiceGroupConfiguration(services: [.init(service: app)], logger: logger)
        shutdown.maximumGracefulShutdownDuration = .seconds(5)
        let group = ServiceGroup(configuration: shutdown)
        let task = Task {
            defer { portsContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // The server stopped before it listened: report why.
            try await task.value
            throw FixtureServerError.notStarted(host: configuration.host, port: configuration.port)
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return FixtureServer(
            baseURL: URL(string: "http://\(host):\(port)")!,
            task: task,
            group: group,
            routes: routes
        )
    }

    /// Stops serving and waits until the server has shut down: gracefully (no new
    /// connections, the open ones finish), cancelled after 5 s. Cancelling at once
    /// crashed the process when a connection had been accepted but not yet served
    /// (NIO's "Deinited NIOAsyncWriter without calling finish()", swift-nio #3481,
    /// whose maintainers advise a graceful shutdown).
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Blocks until the server stops (for `feedsh serve-fixtures`).
    public func wait() async throws {
        try await task.value
    }

    /// The requests answered so far, oldest first (the most recent 5 000 to 10 000).
    public var requests: [RecordedRequest] { routes.log.withLock { $0 } }

    /// The most requests answered at once since ``resetPeakConcurrency()`` (counted
    /// until each response head is ready, so a `delay` fault makes them overlap).
    public var peakConcurrency: Int { routes.concurrency.withLock { $0.peak } }

    public func resetPeakConcurrency() {
        routes.concurrency.withLock { $0.peak = $0.now }
    }

    /// The URL of `path` (which starts with `/`) on this server.
    /// The feeds user `user` of the sync API is subscribed to, and how many
    /// episode actions it holds.
    public func syncState(user: String) -> (subscriptions: [String], actions: Int) {
        routes.syncState(user: user)
    }

    /// The episode actions stored for `user`, each a JSON object as uploaded, in
    /// upload order.
    public func syncActions(user: String) -> [Data] {
        routes.syncActions(user: user)
    }

    /// Ends the sync API's sessions, as a server that restarted or expired them
    /// would: the next request with a `sessionid` cookie is refused (401).
    public func endSyncSessions() {
        routes.endSyncSessions()
    }

    /// Stores episode actions for `user` as another device would upload them (a
    /// JSON list of action objects); false when `json` is no such list.
    @discardableResult
    public func addSyncActions(_ json: Data, user: String) -> Bool {
        routes.addSyncActions(json, user: user)
    }

    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path)!
    }
}

/// Why the fixture server could not start.
public enum FixtureServerError: Error, CustomStringConvertible {
    case notStarted(host: String, port: Int)

    public var description: String {
        switch self {
        case .notStarted(let host, let port): "the fixture server could not listen on \(host):\(port)"
        }
    }
}

/// One request as the server saw it, for tests that check what a client sent.
public struct RecordedRequest: Sendable, Equatable {
    public let method: String
    /// The path after any `/fault/SPEC` prefix.
    public let path: String
    public let query: String?
    /// The `Range` header, if any.
    public let range: String?
    /// The `If-Range` header, if any.
    public let ifRange: String?
    /// The `User-Agent`, `Accept` and `Accept-Encoding` headers, if any.
    public var userAgent: String? = nil
    public var accept: String? = nil
    public var acceptEncoding: String? = nil
    /// The `Authorization` header and the host the request was sent to
    /// (`127.0.0.1:PORT` or `localhost:PORT`), to see where credentials went.
    public var authorization: String? = nil
    /// The `Cookie` header, if any (the sync API's session).
    public var cookie: String? = nil
    public var authority: String? = nil
}
