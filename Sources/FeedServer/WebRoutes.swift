import FeedServices
import Foundation
import Hummingbird
import NIOCore
import PlainText

/// The web page's routes: its addresses (each answered with the one page, which
/// draws the view its address names), its script, style, manifest and icon
/// (carried in the binary), and `/api/`, which answers with the core's values.
/// Changes are POSTs, refused when a page of another origin sends them.
extension FeedServer {
    /// The page's own addresses: deep links and the back button load the page,
    /// which draws the view.
    static let pages = ["/", "/p/:number", "/e/:ref", "/find", "/queue", "/stats", "/bookmarks"]

    func registerWeb(on router: Router<ServeContext>, web: any WebLibrary) {
        for page in Self.pages {
            router.on(RouterPath(page), method: .get) { _, _ in WebAssets.page.response }
            router.on(RouterPath(page), method: .head) { _, _ in WebAssets.page.response.withoutBody }
        }
        for asset in WebAssets.all {
            router.on(RouterPath(asset.path), method: .get) { _, _ in asset.response }
            router.on(RouterPath(asset.path), method: .head) { _, _ in asset.response.withoutBody }
        }
        router.on("/api/subscriptions", method: .get) { _, _ in try await Self.json(web.subscriptions()) }
        router.on("/api/podcasts/:number", method: .get) { _, context in
            guard let number = context.parameters.get("number").flatMap(Int64.init), number > 0,
                let podcast = try await web.podcast(number)
            else { throw WebRefusal(.notFound, "no such subscription") }
            return try Self.json(podcast)
        }
        router.on("/api/episodes/:ref", method: .get) { _, context in
            try await Self.json(web.episode(Self.address(context)))
        }
        router.on("/api/episodes/:ref/transcript", method: .get) { _, context in
            try await Self.json(web.transcript(Self.address(context)))
        }
        router.on("/api/episodes/:ref/chapters", method: .get) { _, context in
            try await Self.json(web.chapters(Self.address(context)))
        }
        router.on("/api/find", method: .get) { request, _ in
            let words = request.uri.queryParameters.get("q") ?? ""
            guard !words.trimmingCharacters(in: .whitespaces).isEmpty else { return try Self.json(HitList([])) }
            return try await Self.json(web.find(words))
        }
        router.on("/api/queue", method: .get) { _, _ in try await Self.json(web.queue()) }
        router.on("/api/stats", method: .get) { request, _ in
            try await Self.json(web.stats(by: request.uri.queryParameters.get("by") ?? "podcast"))
        }
        router.on("/api/bookmarks", method: .get) { _, _ in try await Self.json(web.bookmarks()) }
        router.on("/api/artwork/:number", method: .get) { _, context in
            guard let number = context.parameters.get("number").flatMap(Int64.init),
                let (file, type) = await web.artwork(number), let data = try? Data(contentsOf: file)
            else { throw WebRefusal(.notFound, "no artwork kept for it") }
            return Response(
                status: .ok,
                headers: [.contentType: type, .cacheControl: "max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(bytes: data))
            )
        }
        router.on("/api/episodes/:ref/place", method: .post) { request, context in
            try Self.sameOrigin(request)
            let body = try await Self.body(PlaceBody.self, of: request)
            return try await Self.json(
                web.savePlace(
                    Self.address(context),
                    seconds: body.seconds,
                    startedAt: body.startedAt,
                    ended: body.ended ?? false,
                    speed: body.speed,
                    wall: body.wall
                )
            )
        }
        router.on("/api/episodes/:ref/bookmarks", method: .post) { request, context in
            try Self.sameOrigin(request)
            let body = try await Self.body(BookmarkBody.self, of: request)
            return try await Self.json(web.addBookmark(Self.address(context), at: body.at, note: body.note))
        }
        router.on("/api/episodes/:ref/download", method: .post) { request, context in
            try Self.sameOrigin(request)
            return try await Self.json(web.download(Self.address(context)))
        }
    }

    /// `{"seconds": 754.2, "startedAt": 700, "ended": false}`.
    struct PlaceBody: Decodable {
        var seconds: Double
        var startedAt: Double?
        var ended: Bool?
        /// The speed the stretch played at, for the listening history.
        var speed: Double?
        /// Wall-clock seconds the stretch took.
        var wall: Double?
    }

    /// `{"at": 754.2, "note": "the part on isolation"}`.
    struct BookmarkBody: Decodable {
        var at: Double
        var note: String?
    }

    /// `P:E` of the route, or a 404 that says what an address looks like.
    static func address(_ context: ServeContext) throws -> ListedAddress {
        guard let text = context.parameters.get("ref"), let address = ListedAddress(text) else {
            throw WebRefusal(.notFound, "an episode is P:E, such as 2:1")
        }
        return address
    }

    /// A change must come from this server's own page: a browser says where a
    /// request comes from (`Sec-Fetch-Site`, `Origin`), and a page of another
    /// origin cannot make it say this one. A client that is no browser (curl, a
    /// script) sends neither, and is no page another site could drive.
    static func sameOrigin(_ request: Request) throws {
        if let site = request.headers[.init("Sec-Fetch-Site")!] {
            guard site == "same-origin" || site == "none" else {
                throw WebRefusal(.forbidden, "a change must come from this server's own page")
            }
        }
        if let origin = request.headers[.init("Origin")!] {
            let host = request.head.authority ?? request.headers[.init("Host")!]
            guard let host, origin == "http://" + host else {
                throw WebRefusal(.forbidden, "a change must come from this server's own page")
            }
        }
    }

    static func body<Body: Decodable>(_ type: Body.Type, of request: Request) async throws -> Body {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: 64 * 1024)
        } catch {
            throw WebRefusal(.badRequest, "the body must be JSON of at most 64 KiB")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer: buffer))
        } catch {
            throw WebRefusal(.badRequest, "the body is not the JSON this route takes")
        }
    }

    /// `value` as the front ends encode it (the same keys `--json` gives).
    static func json(_ value: some Encodable) throws -> Response {
        let text = JSONValue(encoding: value).text
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}

extension WebRefusal: HTTPResponseError {
    package var status: HTTPResponse.Status {
        switch kind {
        case .notFound: .notFound
        case .badRequest: .badRequest
        case .conflict: .conflict
        case .forbidden: .forbidden
        }
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let text = JSONValue(encoding: ["error": description]).text
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}

/// What every answer of a server with the page carries: the page runs only its
/// own script and loads nothing from another host, and no other site frames it.
struct SecurityHeaders: RouterMiddleware {
    static let policy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Made (and checked) once, not at every request.
    static let fields: HTTPFields = [
        .contentSecurityPolicy: policy, .init("X-Content-Type-Options")!: "nosniff",
        .init("Referrer-Policy")!: "no-referrer",
    ]

    func handle(
        _ request: Request,
        context: ServeContext,
        next: (Request, ServeContext) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        // Not on a 304: a browser keeps the headers it stored with the page.
        guard response.status != .notModified else { return response }
        // Appended: no handler sets these (setting searched the fields for each).
        response.headers.append(contentsOf: Self.fields)
        return response
    }
}
