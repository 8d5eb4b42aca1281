import FixtureData
import Foundation
import HTTPSupport
import Hummingbird
import NIOCore
import Synchronization

/// The request handling of ``FixtureServer``, apart from the socket.
final class FixtureRoutes: Sendable {
    static let logLimit = 10_000
    let mediaRate: Int?
    let log = Mutex<[RecordedRequest]>([])
    /// How often each `times=`-limited fault has fired, by prefix and path.
    private let faultCounts = Mutex<[String: Int]>([:])
    /// Requests being answered now, and the most at once since the last reset.
    let concurrency = Mutex<(now: Int, peak: Int)>((0, 0))
    /// What the sync API (``registerSync(on:)``) was given.
    let syncStore = Mutex(SyncStore())

    init(mediaRate: Int?) {
        self.mediaRate = mediaRate
    }

    /// Every route, on `router`. The paths are the real APIs' (Apple's, the Met's,
    /// JSONPlaceholder's) and this server's own; ``FaultMiddleware`` has taken any
    /// `/fault/SPEC` prefix off before they are matched, and left its ``Fault`` in
    /// the context. GET routes answer HEAD too, each in its own way.
    func register(on router: Router<FixtureRequestContext>) {
        router.get("/lookup") { request, context in
            let query = request.uri.queryParameters
            return self.lookup(
                id: query.get("id"),
                limit: context.fault.ignoreLimit ? "200" : query.get("limit"),
                host: request.head.authority
            )
        }
        router.get("/search") { request, _ in
            let query = request.uri.queryParameters
            if query.get("media") == "music" {
                return self.musicSearch(
                    term: query.get("term"),
                    limit: query.get("limit"),
                    host: request.head.authority
                )
            }
            return self.search(term: query.get("term"), media: query.get("media"), limit: query.get("limit"))
        }
        for prefix in ["/images/**", "/artwork/**"] {
            getOrHead(router, prefix) { request, context in
                self.image(request, path: Substring(request.uri.path), fault: context.fault)
            }
        }
        router.get("/public/collection/v1/search") { request, _ in
            let query = request.uri.queryParameters
            return self.metSearch(query: query.get("q"), medium: query.get("medium"), hasImages: query.get("hasImages"))
        }
        router.get("/public/collection/v1/objects/:id") { request, context in
            self.metObject(id: context.parameters.get("id") ?? "", host: request.head.authority)
        }
        for path in ["/posts", "/posts/**"] {
            router.get(RouterPath(path)) { request, _ in
                self.posts(
                    path: Substring(request.uri.path).dropFirst("/posts".count),
                    userId: request.uri.queryParameters.get("userId")
                )
            }
        }
        getOrHead(router, "/feeds/**") { request, context in
            self.feed(request, path: Substring(request.uri.path).dropFirst("/feeds/".count), fault: context.fault)
        }
        getOrHead(router, "/opml/**") { request, _ in
            self.opml(request, name: Substring(request.uri.path).dropFirst("/opml/".count))
        }
        router.get("/chapters/:name") { _, context in
            Self.chapters(Substring(context.parameters.get("name") ?? ""))
        }
        router.get("/transcripts/:name") { request, context in
            Self.transcript(
                Substring(context.parameters.get("name") ?? ""),
                megabytes: request.uri.queryParameters.get("mb").flatMap { Int($0) },
                gzip: context.fault.gzip
            )
        }
        router.get("/api/1.0/search/byterm") { request, context in
            self.podcastIndexSearch(request, fault: context.fault)
        }
        registerSync(on: router)
        // A private feed's enclosures: Basic auth, else 401 (see `privateFeed`).
        getOrHead(router, "/private/media/**") { request, context in
            if let refusal = Self.privateRefusal(request) { return refusal }
            return self.media(
                request,
                key: "private/" + String(request.uri.path.dropFirst("/private/media/".count)),
                size: nil,
                fault: context.fault
            )
        }
        // Its chapters and transcripts: the public ones, behind the same auth.
        router.get("/private/chapters/:name") { request, context in
            Self.privateRefusal(request) ?? Self.chapters(Substring(context.parameters.get("name") ?? ""))
        }
        router.get("/private/transcripts/:name") { request, context in
            Self.privateRefusal(request)
                ?? Self.transcript(Substring(context.parameters.get("name") ?? ""), megabytes: nil)
        }
        // A redirect from the private feed's origin to another (localhost), which
        // must not carry the credentials.
        router.get("/private/elsewhere/:name") { request, context in
            let port = request.head.authority?.split(separator: ":").last.map(String.init) ?? "80"
            let name = context.parameters.get("name") ?? "x.mp3"
            return Response(status: .found, headers: [.location: "http://localhost:\(port)/media/private-\(name)"])
        }
        getOrHead(router, "/media/**") { request, context in
            self.media(
                request,
                key: String(request.uri.path.dropFirst("/media/".count)),
                size: request.uri.queryParameters.get("size").flatMap { Int($0) },
                fault: context.fault
            )
        }
    }

    /// Registers `handler` for GET and for HEAD (it answers HEAD itself).
    private func getOrHead(
        _ router: Router<FixtureRequestContext>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, FixtureRequestContext) -> Response
    ) {
        router.get(RouterPath(path)) { request, context in handler(request, context) }
        router.head(RouterPath(path)) { request, context in handler(request, context) }
    }

    /// What the `/fault/SPEC` prefix of a request says, after counting it (for
    /// `times=`, `after=` and `changes=`): the fault, or a response that answers
    /// the request at once (a bad spec, a redirect).
    fileprivate func fault(spec: Substring, path: Substring, request: Request) -> FaultOutcome {
        var fault: Fault
        do {
            fault = try Fault(spec: spec)
        } catch {
            return .answer(.json(status: .badRequest, ["errorMessage": "unknown fault '\(error.item)'"]))
        }
        let key = "\(spec)|\(path)"
        let count = faultCounts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key]!
        }
        if let times = fault.times, count > times { fault = Fault() }
        if let after = fault.after, count <= after { fault = Fault() }
        if let after = fault.changesAfter, count > after { fault.version += 1 }
        if fault.redirectToFile {
            return .answer(Response(status: .found, headers: [.location: "file:///etc/passwd"]))
        }
        if fault.elsewhere, request.headers[.range] != nil,
            let authority = request.head.authority, !authority.hasPrefix("localhost:")
        {
            let port = authority.split(separator: ":").last.map(String.init) ?? "80"
            var target = "http://localhost:\(port)/fault/\(spec)\(path)"
            if let query = request.uri.query { target += "?\(query)" }
            return .answer(Response(status: .found, headers: [.location: target]))
        }
        if fault.redirects != 0 {
            let next = fault.redirects < 0 ? String(spec) : Fault.nextHop(spec)
            var target = "/fault/\(next)\(path)"
            if let query = request.uri.query { target += "?\(query)" }
            return .answer(Response(status: .found, headers: [.location: target]))
        }
        return .fault(fault)
    }

    fileprivate func record(_ request: Request, path: Substring) {
        log.withLock {
            // Bounded, for a long `serve-fixtures` run; tests look at far fewer.
            if $0.count >= Self.logLimit { $0.removeFirst($0.count / 2) }
            $0.append(
                RecordedRequest(
                    method: request.method.rawValue,
                    path: String(path),
                    query: request.uri.query,
                    range: request.headers[.range],
                    ifRange: request.headers[.ifRange],
                    userAgent: request.headers[.userAgent],
                    accept: request.headers[.accept],
                    acceptEncoding: request.headers[.acceptEncoding],
                    authorization: request.headers[.authorization],
                    cookie: request.headers[.cookie],
                    authority: request.head.authority
                )
            )
        }
    }

    private func lookup(id: String?, limit: String?, host: String?) -> Response {
        guard let id, let number = Int64(id), number > 0 else {
            return .json(status: .badRequest, ["errorMessage": "Invalid value(s) for key(s): [id]"])
        }
        let limit = min(max(limit.flatMap { Int($0) } ?? 50, 1), 200)
        guard let bytes = FixtureFiles.all["itunes/lookup-\(number).json"] ?? Self.synthesizedLookup(number) else {
            return .itunes(Data(#"{"resultCount":0,"results":[]}"#.utf8))
        }
        let text = Self.servedHere(String(decoding: bytes, as: UTF8.self), host: host)
        guard
            var object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let results = object["results"] as? [Any]
        else {
            // A fixture that is not JSON on purpose is served as it is.
            return .itunes(Data(text.utf8))
        }
        let kept = Array(results.prefix(limit + 1))
        object["results"] = kept
        object["resultCount"] = kept.count
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data()
        return .itunes(data)
    }

    /// Fixture URLs point at `media.invalid`, `artwork.invalid`, `images.invalid` and
    /// `feeds.invalid`; this server answers for all four.
    static func servedHere(_ text: String, host: String?) -> String {
        let base = "http://\(host ?? "127.0.0.1")"
        return text.replacingOccurrences(of: "https://media.invalid/", with: base + "/media/")
            .replacingOccurrences(of: "https://artwork.invalid/", with: base + "/artwork/")
            .replacingOccurrences(of: "https://images.invalid/", with: base + "/images/")
            .replacingOccurrences(of: "https://feeds.invalid/", with: base + "/feeds/")
    }

    /// A lookup for a podcast that only the search fixture knows: its record and
    /// twelve generated weekly episodes, so that `open` works for every result.
    static func synthesizedLookup(_ id: Int64) -> [UInt8]? {
        guard let bytes = FixtureFiles.all["itunes/search-podcasts.json"],
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let record = (object["results"] as? [[String: Any]])?.first(where: {
                ($0["collectionId"] as? NSNumber)?.int64Value == id
            })
        else { return nil }
        let name = record["collectionName"] as? String ?? "Podcast"
        var results: [[String: Any]] = [record]
        let newest = 1_793_520_000.0  // 2026-11-01
        for index in 0..<12 {
            let episode = id * 100 + Int64(12 - index)
            let date = Date(timeIntervalSince1970: newest - Double(index) * 7 * 86_400)
            results.append([
                "wrapperType": "podcastEpisode", "kind": "podcast-episode",
                "collectionId": id, "collectionName": name, "trackId": episode,
                "trackName": "\(name), episode \(12 - index)",
                "releaseDate": ISO8601DateFormatter().string(from: date),
                "trackTimeMillis": (20 + (index * 7) % 40) * 60_000,
                "episodeUrl": "https://media.invalid/\(id)/\(episode).mp3",
                "description": "Episode \(12 - index) of \(name), generated by the fixture server.",
            ])
        }
        let body: [String: Any] = ["resultCount": results.count, "results": results]
        return (try? JSONSerialization.data(withJSONObject: body)).map { Array($0) }
    }

    /// iTunes search: podcasts whose name, artist or genre contains the term.
    private func search(term: String?, media: String?, limit: String?) -> Response {
        guard let term, !term.isEmpty else {
            return .json(status: .badRequest, ["errorMessage": "Invalid value(s) for key(s): [term]"])
        }
        let limit = min(max(limit.flatMap { Int($0) } ?? 50, 1), 200)
        var results: [[String: Any]] = []
        if media == nil || media == "podcast",
            let bytes = FixtureFiles.all["itunes/search-podcasts.json"],
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let all = object["results"] as? [[String: Any]]
        {
            let needle = term.lowercased()
            results = all.filter { record in
                ["collectionName", "artistName", "primaryGenreName"].contains {
                    (record[$0] as? String)?.lowercased().contains(needle) == true
                }
            }
        }
        let kept = Array(results.prefix(limit))
        let body: [String: Any] = ["resultCount": kept.count, "results": kept]
        return .itunes((try? JSONSerialization.data(withJSONObject: body)) ?? Data())
    }

    /// JSONPlaceholder: `/posts[?userId=N]`, `/posts/N`, `/posts/N/comments`; an
    /// unknown post is 404 with `{}`, as there.
    private func posts(path: Substring, userId: String?) -> Response {
        func load(_ name: String) -> [[String: Any]] {
            guard let bytes = FixtureFiles.all["posts/\(name).json"] else { return [] }
            return (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]]) ?? []
        }
        func json(_ value: Any, status: HTTPResponse.Status = .ok) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
            return Response(
                status: status,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: data))
            )
        }
        let parts = path.split(separator: "/")
        let all = load("posts")
        if parts.isEmpty {
            guard let userId else { return json(all) }
            return json(all.filter { ($0["userId"] as? Int).map(String.init) == userId })
        }
        guard let id = Int(parts[0]), let post = all.first(where: { $0["id"] as? Int == id }) else {
            return json([String: Any](), status: .notFound)
        }
        if parts.count == 2, parts[1] == "comments" {
            return json(load("comments").filter { $0["postId"] as? Int == id })
        }
        return parts.count == 1 ? json(post) : json([String: Any](), status: .notFound)
    }

    private func media(_ request: Request, key: String, size: Int?, fault: Fault) -> Response {
        let media: any ServedMedia =
            if key.hasPrefix("tone/"), key.hasSuffix(".wav"), let seconds = Int(key.dropFirst(5).dropLast(4)),
                (1...3600).contains(seconds)
            {
                ToneMedia(seconds: seconds)
            } else if key.hasPrefix("gap/"), key.hasSuffix(".wav"),
                case let numbers = key.dropFirst(4).dropLast(4).split(separator: "-").compactMap({ Int($0) }),
                numbers.count == 3, (1...3600).contains(numbers[0]), numbers[1] < numbers[2], numbers[2] <= numbers[0]
            {
                ToneMedia(seconds: numbers[0], silence: numbers[1]..<numbers[2])
            } else if key == "chaptered.mp3" {
                ChapteredMedia()
            } else {
                SyntheticMedia(key: key, version: fault.version, size: size)
            }
        let etag = "\"\(media.tag)-\(media.size)\""
        let lastModified = httpDate(Date(timeIntervalSince1970: 1_793_491_200 + Double(fault.version) * 86_400))
        var headers: HTTPFields = [
            .contentType: key.hasSuffix(".m4a") ? "audio/mp4" : media.contentType,
            .eTag: etag,
            .lastModified: lastModified,
        ]
        if fault.omitValidators {
            headers[.eTag] = nil
            headers[.lastModified] = nil
        }
        if fault.echoIfRange, let sent = request.headers[.ifRange] {
            headers[.eTag] = sent
            headers[.lastModified] = nil
        }
        var status = HTTPResponse.Status.ok
        var range = 0..<media.size
        if !fault.ignoreRange, !fault.empty {
            headers[.acceptRanges] = "bytes"
            let validator = request.headers[.ifRange]
            let rangeHeader =
                validator == nil || validator == etag || validator == lastModified || fault.ignoreIfRange
                ? request.headers[.range] : nil
            switch ByteRangeRequest(header: rangeHeader, length: media.size) {
            case .none:
                break
            case .satisfiable(let requested):
                status = .partialContent
                range = min(requested.lowerBound + fault.offsetShift, media.size)..<requested.upperBound
                if !fault.omitContentRange {
                    headers[.contentRange] = "bytes \(range.lowerBound)-\(requested.upperBound - 1)/\(media.size)"
                }
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(media.size)"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            }
        }
        if fault.gzip {
            var plain = [UInt8](repeating: 0, count: range.count)
            plain.withUnsafeMutableBytes { media.write(range, into: $0) }
            let encoded = Gzip.stored(plain)
            headers[.contentEncoding] = "gzip"
            headers[.contentLength] = String(encoded.count)
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: encoded)))
        }
        if request.method == .head {
            headers[.contentLength] = String(range.count)
            return Response(status: status, headers: headers, body: .init())
        }
        return Self.body(status: status, headers: headers, range: range, fault: fault, rate: fault.rate ?? mediaRate) {
            media.write($0, into: $1)
        }
    }

    /// A response of `range` of a resource (`fill` copies the bytes of a range into
    /// a buffer) with the body faults applied: `short`, `drop`, `nolength`,
    /// `endless`, `empty` (see ``Fault``).
    static func body(
        status: HTTPResponse.Status,
        headers: HTTPFields,
        range: Range<Int>,
        fault: Fault,
        rate: Int?,
        fill: @escaping @Sendable (Range<Int>, UnsafeMutableRawBufferPointer) -> Void
    ) -> Response {
        var headers = headers
        let range = fault.empty ? range.lowerBound..<range.lowerBound : range
        let closeDelimited = fault.noLength || fault.endless
        let promised = range.count + (fault.shortBy ?? 0)
        if closeDelimited {
            headers[.contentLength] = nil
            headers[.init(CloseDelimited.marker)!] = "1"
        } else {
            headers[.contentLength] = String(promised)
        }
        let sendCount = min(range.count, fault.dropAfter ?? .max)
        let closesEarly = fault.endless || sendCount < promised
        let sent = range.lowerBound..<(range.lowerBound + sendCount)
        let endless = fault.endless
        let body = ResponseBody(contentLength: closeDelimited ? nil : promised) { writer in
            try await Self.stream(sent, rate: rate, to: &writer, fill: fill)
            if endless {
                // Zeros until the client goes away (at most 64 GiB).
                try await Self.stream(0..<(64 << 30), rate: rate, to: &writer) { _, buffer in
                    buffer.initializeMemory(as: UInt8.self, repeating: 0)
                }
            }
            if closesEarly {
                // Closing mid-body is the fault: the client was promised more (a
                // close-delimited body is closed after its end is written).
                throw InjectedDisconnect()
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Writes `range` of a body in chunks, at most `rate` bytes a second; `fill`
    /// copies the bytes of a range into a buffer.
    static func stream(
        _ range: Range<Int>,
        rate: Int?,
        to writer: inout any ResponseBodyWriter,
        fill: (Range<Int>, UnsafeMutableRawBufferPointer) -> Void
    ) async throws {
        let chunk = rate.map { max(4096, min(65536, $0 / 20)) } ?? 65536
        let clock = ContinuousClock()
        let start = clock.now
        var offset = range.lowerBound
        let allocator = ByteBufferAllocator()
        while offset < range.upperBound {
            let end = min(offset + chunk, range.upperBound)
            var buffer = allocator.buffer(capacity: end - offset)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: end - offset) { pointer in
                fill(offset..<end, pointer)
                return end - offset
            }
            try await writer.write(buffer)
            offset = end
            if let rate, rate > 0 {
                let due = start + .milliseconds((offset - range.lowerBound) * 1000 / rate)
                try await Task.sleep(until: due, clock: clock)
            }
        }
    }
}

struct InjectedDisconnect: Error {}

extension Response {
    static func json(status: HTTPResponse.Status, _ object: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// Apple serves lookups as `text/javascript`, not `application/json`.
    static func itunes(_ data: Data) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/javascript; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// What a `/fault/SPEC` prefix comes to: the fault to inject, or an answer given
/// at once (a bad spec, a redirect).
enum FaultOutcome {
    case fault(Fault)
    case answer(Response)
}

/// A request's context: Hummingbird's, and the fault its `/fault/SPEC` prefix asked
/// for (none without one).
struct FixtureRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var fault = Fault()

    init(source: Source) {
        coreContext = .init(source: source)
    }
}

/// What every request goes through before the router: counted (for
/// ``FixtureServer/peakConcurrency``), its `/fault/SPEC` prefix taken off and
/// turned into the context's ``Fault``, recorded, delayed, or answered at once
/// with an injected status or page. It wraps the router's responder rather than
/// being a router middleware: the router picks a route before its middleware run,
/// and the route must be picked from the path without the prefix.
struct FaultMiddleware: MiddlewareProtocol {
    typealias Input = Request
    typealias Output = Response
    typealias Context = FixtureRequestContext
    let routes: FixtureRoutes

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        routes.concurrency.withLock {
            $0.now += 1
            $0.peak = max($0.peak, $0.now)
        }
        defer { routes.concurrency.withLock { $0.now -= 1 } }
        var request = request
        var context = context
        var path = Substring(request.uri.path)
        if path.hasPrefix("/fault/") {
            let rest = path.dropFirst("/fault/".count)
            let spec = rest.prefix { $0 != "/" }
            path = rest.dropFirst(spec.count)
            switch routes.fault(spec: spec, path: path, request: request) {
            case .answer(let answer): return answer
            case .fault(let fault): context.fault = fault
            }
            var head = request.head
            head.path = String(path) + (request.uri.query.map { "?\($0)" } ?? "")
            request = Request(head: head, body: request.body)
        }
        routes.record(request, path: path)
        let fault = context.fault
        if fault.delayMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(fault.delayMilliseconds))
        }
        if let status = fault.status {
            var response = Response.json(
                status: HTTPResponse.Status(code: status),
                ["errorMessage": "injected status \(status)"]
            )
            if let retryAfter = fault.retryAfter {
                response.headers[.retryAfter] = String(retryAfter)
            }
            return response
        }
        if fault.html {
            let page = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Captive portal</body></html>\n"
            return Response(
                status: .ok,
                headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: page))
            )
        }
        return try await next(request, context)
    }
}

/// A path no route takes gets JSON like the APIs' errors (a router middleware:
/// it wraps the router's "not found").
struct NoRouteMiddleware: RouterMiddleware {
    typealias Context = FixtureRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return .json(status: .notFound, ["errorMessage": "no fixture route for \(request.uri.path)"])
        }
    }
}
