import Foundation
import HTTPSupport
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Which feed a request asks for.
public enum FeedChoice: Sendable, Equatable {
    /// `/feeds/all.xml`: every downloaded episode, newest first.
    case all
    /// `/feeds/queue.xml`: the queue's downloaded episodes, in its order.
    case queue
    /// `/feeds/P.xml`: subscription P's downloaded episodes.
    case podcast(Int64)
    /// `/feeds/playlist/NAME.xml`: a smart playlist's downloaded episodes, in
    /// its order.
    case playlist(String)
}

/// What `feedsh serve` serves, from the library and the download folder: the
/// front end asks, the library's side answers.
public protocol ServeCatalog: Sendable {
    /// The feed, or nil when there is no such subscription.
    func feed(_ choice: FeedChoice) async throws -> ServedFeed?
    /// The version of what `feed(choice)` reads, cheap to take: a feed is
    /// rendered once for each (nil: every time).
    func version(of choice: FeedChoice) -> FeedVersion?
    /// The subscriptions as OPML 2.0.
    func subscriptionsOPML() async throws -> String
    /// The download folder: `/media/` serves its complete files.
    var mediaRoot: URL { get }
}

extension ServeCatalog {
    /// No version: each request renders the feed.
    public func version(of choice: FeedChoice) -> FeedVersion? { nil }
}

/// One request or scheduled update, as `serve` logs it on standard error.
public struct ServeLogLine: Sendable, Equatable {
    public var method: String
    public var path: String
    public var status: Int
    public var bytes: Int?
    public var milliseconds: Int
}

/// The HTTP front end of `feedsh serve`: feeds of the downloaded episodes, OPML,
/// the files themselves and the web page, with Basic auth when a password is set.
public struct FeedServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Every route wants Basic auth with this password (any user name).
        public var password: String?
        /// How long a connection may stay open with no request in progress: an
        /// idle or half-sent connection holds a file descriptor, and enough of
        /// them stopped the server answering anyone.
        public var idleTimeout: Duration
        /// At most this many connections at once (nil: half the open-file
        /// limit); past it, the one inactive longest is closed to make room.
        public var maxConnections: Int?

        public init(
            host: String = "127.0.0.1",
            port: Int = 8786,
            password: String? = nil,
            idleTimeout: Duration = .seconds(20),
            maxConnections: Int? = nil
        ) {
            self.host = host
            self.port = port
            self.password = password
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
        }

        /// Whether `host` is a loopback address (only this machine reaches it).
        public var isLoopback: Bool {
            host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }

    let catalog: any ServeCatalog
    /// Each feed as last rendered, and from which version of the catalog.
    let feeds = RenderedFeeds()
    /// The web page's library side; nil with `--no-web` (no page, no `/api/`).
    let web: (any WebLibrary)?
    public let configuration: Configuration
    let log: @Sendable (ServeLogLine) -> Void

    public init(
        catalog: any ServeCatalog,
        configuration: Configuration,
        log: @escaping @Sendable (ServeLogLine) -> Void
    ) {
        self.init(catalog: catalog, web: nil, configuration: configuration, log: log)
    }

    package init(
        catalog: any ServeCatalog,
        web: (any WebLibrary)?,
        configuration: Configuration,
        log: @escaping @Sendable (ServeLogLine) -> Void
    ) {
        self.catalog = catalog
        self.web = web
        self.configuration = configuration
        self.log = log
    }

    /// Serves until SIGTERM or SIGINT (or `stop` returns), then lets the requests
    /// in flight finish. `started` gets the bound port; `services` run beside the
    /// server and are shut down with it (the scheduled updates). Stop it so, not
    /// by cancelling its task: connections accepted but not yet taken up are then
    /// torn down mid-way, which NIO answers with a trap (SIGILL).
    public func run(
        services: [any Service] = [],
        stop: (@Sendable () async -> Void)? = nil,
        started: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        // Nothing of Hummingbird's is logged (RequestLog says what happened), and
        // swift-log's stream handler formatted each request's metadata anyway.
        let logger = Logger(label: "feedsh.serve", factory: { _ in SwiftLogNoOpLogHandler() })
        let idle = configuration.idleTimeout.components
        let limit = configuration.maxConnections.map(ConnectionLimit.init) ?? .fromOpenFileLimit()
        let app = Application(
            router: router(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [limit.handler()],
                    idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)
                )
            ),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in started(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        var group = ServiceGroupConfiguration(
            services: [.init(service: app)] + services.map { .init(service: $0) }
                + (stop.map {
                    [.init(service: Stopper(stop: $0), successTerminationBehavior: .gracefullyShutdownGroup)]
                }
                    ?? []),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // Ctrl-C or SIGTERM: no new connections, and answers in flight get 5 s
        // to finish before their connections close (a stalled client held the
        // stop for 30 s). A player cut off resumes with a range request.
        group.maximumGracefulShutdownDuration = .seconds(5)
        try await ServiceGroup(configuration: group).run()
    }

    /// Every route with its middleware: the request log, the Host check on
    /// loopback, and Basic auth when a password is set.
    func router() -> Router<ServeContext> {
        let router = Router(context: ServeContext.self)
        router.add(middleware: RequestLog(log: log))
        if configuration.isLoopback { router.add(middleware: LoopbackHost()) }
        if let password = configuration.password { router.add(middleware: BasicAuthentication(password: password)) }
        if web != nil { router.add(middleware: SecurityHeaders()) }
        register(on: router)
        if let web { registerWeb(on: router, web: web) }
        return router
    }

    func register(on router: Router<ServeContext>) {
        let catalog = self.catalog
        let feeds = self.feeds
        router.on("/feeds/:name", method: .get) { request, context in
            try await Self.feed(request, context: context, catalog: catalog, feeds: feeds)
        }
        router.on("/feeds/:name", method: .head) { request, context in
            try await Self.feed(request, context: context, catalog: catalog, feeds: feeds).withoutBody
        }
        router.on("/feeds/playlist/:name", method: .get) { request, context in
            try await Self.feed(request, context: context, catalog: catalog, feeds: feeds, playlist: true)
        }
        router.on("/feeds/playlist/:name", method: .head) { request, context in
            try await Self.feed(request, context: context, catalog: catalog, feeds: feeds, playlist: true)
                .withoutBody
        }
        router.on("/subscriptions.opml", method: .get) { request, _ in
            Self.conditional(
                request,
                await RenderedBody.make(try await catalog.subscriptionsOPML(), resource: "opml"),
                type: "text/x-opml; charset=utf-8"
            )
        }
        let media = MediaFiles(root: catalog.mediaRoot)
        router.on("/media/**", method: .get) { request, context in try await media.respond(request, context: context) }
        router.on("/media/**", method: .head) { request, context in
            try await media.respond(request, context: context).withoutBody
        }
    }

    static func feed(
        _ request: Request,
        context: ServeContext,
        catalog: any ServeCatalog,
        feeds: RenderedFeeds,
        playlist: Bool = false
    ) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard name.hasSuffix(".xml") else { throw HTTPError(.notFound) }
        let choice: FeedChoice
        switch name.dropLast(4) {
        case let name where playlist:
            // Names are case-blind: the resource is the lower-cased one.
            choice = .playlist(name.lowercased())
        case "all": choice = .all
        case "queue": choice = .queue
        case let number:
            guard let podcast = Int64(number), podcast > 0 else { throw HTTPError(.notFound) }
            choice = .podcast(podcast)
        }
        let base = Self.base(of: request)
        let link = base + request.uri.path
        // `resource` names what was asked for however it was spelt (`/feeds/2.xml`
        // and `/feeds/0002.xml` are one feed), so that the dates kept are one
        // for each feed, not one for each path a client makes up. Described only
        // for a render: describing an enum is reflection.
        let rendered = try await feeds.feed(link, version: catalog.version(of: choice), resource: "\(choice)") {
            try await catalog.feed(choice).map { RSSWriter.write($0, base: base, link: link) }
        }
        guard let rendered else { throw HTTPError(.notFound) }
        return conditional(request, rendered, type: "application/rss+xml; charset=utf-8")
    }

    /// A body with its strong ETag and Last-Modified; a matching `If-None-Match`
    /// (or, without one, an `If-Modified-Since` not before it) gets a 304 with
    /// the validators and caching only (RFC 9110 15.4.5: a cache keeps the rest
    /// of what it stored), which is most of what `serve` answers.
    static func conditional(_ request: Request, _ rendered: RenderedBody, type: String) -> Response {
        let tag = rendered.tag
        let modified = rendered.modified
        var headers: HTTPFields = [.eTag: tag, .lastModified: rendered.lastModified, .cacheControl: "no-cache"]
        if let match = request.headers[.ifNoneMatch] {
            if match == tag
                || match.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces) == tag || $0 == "*"
                })
            {
                return Response(status: .notModified, headers: headers)
            }
        } else if let since = request.headers[.ifModifiedSince], let date = HTTPDate.parse(since),
            modified.timeIntervalSince1970.rounded(.down) <= date.timeIntervalSince1970
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = type
        headers[.contentLength] = String(rendered.body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: rendered.body))
    }

    /// `http://host:port` as the client named this server (its Host header).
    static func base(of request: Request) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        return "http://" + host
    }

    /// FNV-1a, 64 bits: a body's ETag.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// When each route's body was first served as it is now: its Last-Modified.
actor FirstSeen {
    static let shared = FirstSeen()
    private var seen: [String: (tag: String, date: Date)] = [:]

    /// The resources whose dates are kept.
    var resources: [String] { Array(seen.keys) }

    func date(of path: String, tag: String, now: Date = Date()) -> Date {
        if let known = seen[path], known.tag == tag { return known.date }
        // Whole seconds, as HTTP dates are: never after the Date header.
        let date = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        seen[path] = (tag, date)
        return date
    }
}

extension Response {
    /// The response to a HEAD: the same head, no body.
    var withoutBody: Response {
        Response(status: status, headers: headers, body: .init())
    }
}

/// One line per request, after it was answered (or failed).
struct RequestLog: RouterMiddleware {
    let log: @Sendable (ServeLogLine) -> Void

    func handle(
        _ request: Request,
        context: ServeContext,
        next: (Request, ServeContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        @Sendable func line(_ status: Int, _ bytes: Int?) -> ServeLogLine {
            let elapsed = ContinuousClock.now - start
            return ServeLogLine(
                method: request.method.rawValue,
                path: request.uri.path,
                status: status,
                bytes: bytes,
                milliseconds: Int(
                    elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
                )
            )
        }
        do {
            var response = try await next(request, context)
            let status = response.status.code
            let bytes = response.headers[.contentLength].flatMap { Int($0) }
            let body = response.body
            // No body (a 304, a HEAD): logged now, and the response left as it
            // is, so that its head and end go out in one write (wrapped, each
            // part was a write of its own: a third of a poll's time).
            if body.contentLength == 0 {
                log(line(status, bytes))
                return response
            }
            // Logged once the body is sent: its time is the whole transfer's, not
            // the head's (5.7 MB once said 0 ms).
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                do {
                    try await body.write(writer)
                } catch {
                    log(line(status, bytes))
                    throw error
                }
                log(line(status, bytes))
            }
            return response
        } catch let error as any HTTPResponseError {
            log(line(error.status.code, nil))
            throw error
        } catch {
            log(line(500, nil))
            throw error
        }
    }
}

/// On loopback, only requests that name this machine: a page elsewhere that has
/// its own name resolve to 127.0.0.1 (DNS rebinding) sends that name as `Host`,
/// and is refused (421) before it reaches the OPML, a feed or a file.
struct LoopbackHost: RouterMiddleware {
    func handle(
        _ request: Request,
        context: ServeContext,
        next: (Request, ServeContext) async throws -> Response
    ) async throws -> Response {
        // HTTP/1's Host becomes the authority; a request built in memory keeps
        // it as a field (and has an authority of its own).
        let host = request.headers.first { $0.name.canonicalName == "host" }?.value ?? request.head.authority
        if let host, !Self.namesLoopback(host) {
            return Response(
                status: .misdirectedRequest,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "feedsh serve answers only to localhost and 127.0.0.1\n"))
            )
        }
        return try await next(request, context)
    }

    /// Whether a `Host` value (with or without its port) is `localhost`, an
    /// address of 127.0.0.0/8 or `[::1]`. Read byte by byte, without copies:
    /// it runs for every request.
    static func namesLoopback(_ authority: String) -> Bool {
        var host = authority.utf8[...]
        let colon = UInt8(ascii: ":")
        let dot = UInt8(ascii: ".")
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        if host.first == UInt8(ascii: "[") {
            guard let end = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
            return host[host.index(after: host.startIndex)..<end].elementsEqual("::1".utf8)
        }
        if let port = host.lastIndex(of: colon) {
            guard host[host.index(after: port)...].allSatisfy(isDigit) else { return false }
            host = host[..<port]
        }
        if host.last == dot { host = host.dropLast() }
        // Case-blind: `| 0x20` lowers an ASCII capital, and makes nothing else a
        // letter of "localhost".
        if host.count == 9, zip(host, "localhost".utf8).allSatisfy({ $0 | 0x20 == $1 }) { return true }
        var parts = 0
        var value = 0
        var digits = 0
        var first = -1
        for byte in host {
            if byte == dot {
                guard digits > 0 else { return false }
                if parts == 0 { first = value }
                parts += 1
                (value, digits) = (0, 0)
                continue
            }
            guard isDigit(byte), digits < 3 else { return false }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            guard value <= 255 else { return false }
        }
        return parts == 3 && digits > 0 && first == 127
    }
}

/// Basic auth on every route: any user name, this password.
struct BasicAuthentication: RouterMiddleware {
    let password: String

    func handle(
        _ request: Request,
        context: ServeContext,
        next: (Request, ServeContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], Self.accepts(header, password: password) else {
            return Response(
                status: .unauthorized,
                headers: [.wwwAuthenticate: "Basic realm=\"feedsh\", charset=\"UTF-8\""]
            )
        }
        return try await next(request, context)
    }

    /// Whether `header` is Basic credentials with `password`, compared in time
    /// that does not depend on where they differ.
    static func accepts(_ header: String, password: String) -> Bool {
        guard header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return false }
        let given = Array(text[text.index(after: colon)...].utf8)
        let wanted = Array(password.utf8)
        var difference = given.count ^ wanted.count
        for index in 0..<max(given.count, wanted.count) {
            let a = index < given.count ? given[index] : 0
            let b = index < wanted.count ? wanted[index] : 0
            difference |= Int(a ^ b)
        }
        return difference == 0
    }
}

/// A service that returns when `stop` does (or the group shuts down), and so
/// shuts the group down gracefully.
private struct Stopper: Service {
    let stop: @Sendable () async -> Void

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await stop() }
            group.addTask { try? await gracefulShutdown() }
            await group.next()
            group.cancelAll()
        }
    }
}
