import AsyncHTTPClient
import Foundation
import HTTPSupport
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTPCompression
import WebBasics

/// Fetches feeds: conditional requests, gzip and deflate, redirects followed by
/// hand (so that a permanent move is seen), retries for 5xx and 429 with backoff and
/// `Retry-After`, a size limit, and RFC 5005 paging.
public final class FeedClient: FeedFetching {
    /// Feeds larger than this are refused, as sent or as decompressed.
    public static let defaultSizeLimit = 64 << 20
    /// Pages of a paged feed followed at most.
    public static let pageLimit = 20

    let clients: HTTPClientPool
    let settings: HTTPSettings
    /// The most a feed may be (``defaultSizeLimit`` but in tests).
    let sizeLimit: Int
    /// When to try a request again (``HTTPSupport/RetryPolicy/feeds``).
    let retry: RetryPolicy

    /// Clients of its own (redirects are not followed for them, bodies are
    /// decompressed), through the proxies given; call ``shutdown()`` when done.
    public init(
        settings: HTTPSettings = .init(),
        retry: RetryPolicy = .feeds,
        sizeLimit: Int = FeedClient.defaultSizeLimit,
        proxies: ProxyEnvironment = .direct
    ) {
        self.sizeLimit = sizeLimit
        clients = HTTPClientPool(
            connectTimeout: settings.connectTimeout,
            readTimeout: settings.readTimeout,
            followRedirects: false,
            decompressUpTo: sizeLimit,
            proxies: proxies
        )
        self.settings = settings
        self.retry = retry
    }

    public func shutdown() async throws {
        try await clients.shutdown()
    }

    /// What a fetch found.
    public enum Outcome: Sendable {
        /// 304: nothing changed since the validators were given; the feed may have
        /// moved permanently (301/308 on every hop) to the URL that said so.
        case notModified(movedTo: URL?)
        /// The feed, its validators, and the URL it permanently moved to (301/308 on
        /// every hop, or `itunes:new-feed-url`), if it did.
        case fetched(Feed, etag: String?, lastModified: String?, movedTo: URL?)
        /// 410: the feed is gone for good.
        case gone
    }

    /// Fetches and parses the feed at `url`, conditionally when validators are given.
    ///
    /// With a `sink`, the items of every page go to it in batches as they are parsed
    /// and the feed comes back without them. `credentials` go with every request to
    /// `url`'s origin (its pages, a redirect that stays there), never elsewhere.
    public func fetch(
        _ url: URL,
        etag: String? = nil,
        lastModified: String? = nil,
        credentials: FeedCredentials? = nil,
        sink: FeedItemSink? = nil
    ) async throws(FeedError) -> Outcome {
        let auth = credentials.map { Authentication(credentials: $0, origin: url.origin) }
        let first = try await get(url, etag: etag, lastModified: lastModified, auth: auth, body: .parse(sink))
        let movedHere = first.movedPermanently ? first.finalURL : nil
        switch first.status {
        case 304: return .notModified(movedTo: movedHere)
        case 410: return .gone
        default: break
        }
        guard var feed = first.feed else { return .notModified(movedTo: movedHere) }
        // RFC 5005: follow `next` pages, up to a cap and without loops.
        var seen: Set<URL> = [first.finalURL]
        var next = feed.nextPage
        var pages = 1
        while let page = next, pages < Self.pageLimit, seen.insert(page).inserted {
            // A page that fails ends the paging: what was read stands, and the
            // failure is noted on the feed.
            let response: Response
            do {
                response = try await get(page, etag: nil, lastModified: nil, auth: auth, body: .parse(sink))
            } catch {
                feed.warnings.append("page \(pages + 1) of the feed could not be read: \(error.description)")
                break
            }
            guard response.status == 200, let more = response.feed else {
                feed.warnings.append("page \(pages + 1) of the feed could not be read: HTTP \(response.status)")
                break
            }
            feed.warnings += more.warnings
            let known = Set(feed.items.map(\.guid))
            feed.items += more.items.filter { !known.contains($0.guid) }
            next = more.nextPage
            pages += 1
        }
        return .fetched(
            feed,
            etag: first.etag,
            lastModified: first.lastModified,
            movedTo: Self.movedTo(feed, from: url, movedHere: movedHere)
        )
    }

    /// Where the feed read from `url` moved for good: the `itunes:new-feed-url`
    /// it names (other than `url`), else the URL every hop's 301/308 led to.
    public static func movedTo(_ feed: Feed, from url: URL, movedHere: URL?) -> URL? {
        feed.newFeedURL.flatMap { $0 == url ? nil : $0 } ?? movedHere
    }

    /// A new subscription's first read: the first page's body written to `spool`
    /// as it arrives, unparsed, so that a feed of any size is parsed later a
    /// batch at a time (``FirstRead/spooled(base:etag:lastModified:movedHere:)``).
    /// The same GET as ``fetch(_:etag:lastModified:credentials:sink:)``'s first:
    /// retries, redirects, `credentials` for `url`'s origin only; a 304 or 410
    /// ends it as there.
    public func fetchFirstRead(
        _ url: URL,
        credentials: FeedCredentials?,
        spool: SpooledFeed
    ) async throws(FeedError) -> FirstRead {
        let auth = credentials.map { Authentication(credentials: $0, origin: url.origin) }
        let first = try await get(url, etag: nil, lastModified: nil, auth: auth, body: .spool(spool))
        let movedHere = first.movedPermanently ? first.finalURL : nil
        switch first.status {
        case 304: return .notModified(movedTo: movedHere)
        case 410: return .gone
        default:
            return .spooled(
                base: first.finalURL,
                etag: first.etag,
                lastModified: first.lastModified,
                movedHere: movedHere
            )
        }
    }

    /// What becomes of a 200's body.
    enum Body {
        /// Parsed as it arrives, its items to the sink when there is one.
        case parse(FeedItemSink?)
        /// Written to the spool as it arrives, to be parsed later.
        case spool(SpooledFeed)
    }

    /// Credentials and the one origin they may go to.
    struct Authentication {
        let credentials: FeedCredentials
        let origin: String
    }

    struct Response {
        var status: Int
        /// For a 200: the feed, parsed as it arrived.
        var feed: Feed?
        var finalURL: URL
        var movedPermanently: Bool
        var etag: String?
        var lastModified: String?
    }

    /// One GET with retries and redirects; 200, 304 and 410 come back, every other
    /// answer is an error.
    func get(
        _ url: URL,
        etag: String?,
        lastModified: String?,
        auth: Authentication? = nil,
        body: Body = .parse(nil)
    ) async throws(FeedError) -> Response {
        try HTTPFetcher.refuseUnfetchable(url)
        var attempt = 1
        while true {
            do {
                return try await getFollowingRedirects(
                    url,
                    etag: etag,
                    lastModified: lastModified,
                    auth: auth,
                    body: body
                )
            } catch let failure as Retryable {
                guard attempt < retry.attempts else { throw failure.error }
                try? await Task.sleep(for: retry.delay(afterAttempt: attempt, retryAfter: failure.retryAfter))
                if Task.isCancelled { throw failure.error }
                attempt += 1
            } catch let error as FeedError {
                throw error
            } catch {
                throw HTTPFetcher.describe(error, url: url, timeout: settings.requestTimeout)
            }
        }
    }

    /// Parses the body as it arrives (never holding it whole), up to ``sizeLimit``
    /// bytes as sent and as decompressed.
    ///
    /// A body that breaks off, runs past the limit or decompresses past it is that
    /// feed's error: the parser is told the body failed (it never reads a cut-off
    /// document as whole), and the error says what arrived.
    private func parse(_ response: HTTPClientResponse, url: URL, sink: FeedItemSink?) async throws -> Feed {
        let declared = try declaredLength(of: response, url: url)
        let channel = ByteChannel()
        async let parsed = FeedParser.parse(channel, url: url, sink: sink)
        let received = await receive(response, url: url, declared: declared) { chunk in
            await channel.write(Array(chunk.readableBytesView))
        }
        channel.finish(failure: received.failure?.description)
        let result = await parsed
        if let failure = received.failure {
            if received.retryable { throw Retryable(error: failure, retryAfter: nil) }
            throw failure
        }
        switch result {
        case .success(let feed): return feed
        case .failure(let error): throw FeedError.invalidFeed(url: url, detail: error.description)
        }
    }

    /// Writes the body to `spool` as it arrives (from its start again at each
    /// attempt), within the limits ``parse(_:url:sink:)`` keeps. A write the disk
    /// refused ends it; the spool says why.
    private func spool(_ response: HTTPClientResponse, url: URL, to spool: SpooledFeed) async throws {
        let declared = try declaredLength(of: response, url: url)
        // The disk refused (the updater reports the spool's own failure).
        let refused = {
            FeedError.transport(url: url, detail: spool.writeFailure?.description ?? "the feed cannot be kept")
        }
        guard spool.begin() else { throw refused() }
        let received = await receive(response, url: url, declared: declared) { spool.write($0) }
        if let failure = received.failure {
            if received.retryable { throw Retryable(error: failure, retryAfter: nil) }
            throw failure
        }
        if received.stopped { throw refused() }
    }

    /// The body's Content-Length when it says what will arrive (not for a body
    /// decompressed on the way: it counts the bytes as sent); a body declared
    /// past ``sizeLimit`` is refused before it is read.
    private func declaredLength(of response: HTTPClientResponse, url: URL) throws(FeedError) -> (
        encoded: Bool, declared: Int?
    ) {
        let encoded = response.headers.first(name: "Content-Encoding").map { !$0.isEmpty && $0 != "identity" } ?? false
        let declared = encoded ? nil : response.headers.first(name: "Content-Length").flatMap { Int($0) }
        if let declared, declared > sizeLimit {
            throw FeedError.bodyTooLarge(url: url, limit: sizeLimit)
        }
        return (encoded, declared)
    }

    /// Hands the body to `take` a chunk at a time as it arrives, up to
    /// ``sizeLimit`` bytes as sent and as decompressed, within the request's time.
    /// Returns why it broke off (if it did), whether that is worth another try,
    /// and whether `take` stopped taking (false: a parser that refused the
    /// document, a full disk), which is no failure of the body's.
    private func receive(
        _ response: HTTPClientResponse,
        url: URL,
        declared: (encoded: Bool, declared: Int?),
        take: (ByteBuffer) async -> Bool
    ) async -> (failure: FeedError?, retryable: Bool, stopped: Bool) {
        let (encoded, declared) = declared
        var total = 0
        var failure: FeedError?
        var retryable = false
        var stopped = false
        // The whole body within the request's time (AsyncHTTPClient's deadline
        // ends with the head): a server sending a byte at a time holds no update.
        let start = ContinuousClock.now
        do {
            for try await chunk in response.body {
                if ContinuousClock.now - start > settings.requestTimeout {
                    failure = .timedOut(url: url, after: settings.requestTimeout)
                    break
                }
                total += chunk.readableBytes
                if total > sizeLimit {
                    failure =
                        encoded
                        ? .decompressedTooLarge(url: url, limit: sizeLimit)
                        : .bodyTooLarge(url: url, limit: sizeLimit)
                    break
                }
                guard await take(chunk) else {
                    stopped = true
                    break
                }
            }
        } catch let error as NIOHTTPDecompression.DecompressionError {
            failure =
                error == .limit
                ? .decompressedTooLarge(url: url, limit: sizeLimit)
                : .invalidFeed(url: url, detail: "its compressed body is broken (\(error))")
        } catch {
            let network = HTTPFetcher.describe(error, url: url, timeout: HTTPFetcher.waited(since: start))
            // A body cut short is worth another try; a stall or a refusal says so itself.
            failure = network.code == .transport ? .truncated(url: url, received: total, expected: declared) : network
            retryable = true
        }
        if failure == nil, !stopped, let declared, total < declared {
            failure = .truncated(url: url, received: total, expected: declared)
            retryable = true
        }
        return (failure, retryable, stopped)
    }

    /// A failure worth another try (5xx, 429, a dropped connection).
    struct Retryable: Error {
        let error: FeedError
        let retryAfter: Duration?
    }

    private func getFollowingRedirects(
        _ start: URL,
        etag: String?,
        lastModified: String?,
        auth: Authentication?,
        body: Body
    ) async throws -> Response {
        var url = start
        var permanent = true
        var hops = 0
        var visited: Set<URL> = []
        while true {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "User-Agent", value: settings.userAgent)
            request.headers.add(
                name: "Accept",
                value: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"
            )
            request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
            if let etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
            // Only to the feed's own origin: a redirect elsewhere goes without.
            let sentCredentials = auth.flatMap { $0.origin == url.origin ? $0.credentials : nil }
            if let sentCredentials { request.headers.add(name: "Authorization", value: sentCredentials.authorization) }
            let response: HTTPClientResponse
            let sent = ContinuousClock.now
            do {
                response = try await clients.client(for: url).execute(
                    request,
                    timeout: TimeAmount(settings.requestTimeout)
                )
            } catch {
                let failure = clients.failure(error, url: url)
                let described = HTTPFetcher.describe(failure, url: url, timeout: HTTPFetcher.waited(since: sent))
                // A connection that dropped is worth another try; a server that
                // took the request and never answered is not, at once (the next
                // update asks again), and neither is one that cannot be reached.
                if failure.connectionProblem == nil, failure.reason != .stalled {
                    throw Retryable(error: described, retryAfter: nil)
                }
                throw described
            }
            let status = Int(response.status.code)
            switch status {
            case 301, 302, 303, 307, 308:
                guard let location = response.headers.first(name: "Location"),
                    let next = URL(string: location, relativeTo: url)?.absoluteURL
                else { throw FeedError.httpStatus(status, url: url) }
                guard NetworkFailure.isFetchable(next) else {
                    let failure = NetworkFailure(.redirectedToUnsupportedScheme(next.scheme ?? "none"), url: url)
                    throw FeedError.transport(url: url, detail: failure.description)
                }
                hops += 1
                guard hops <= 5, visited.insert(url).inserted, !visited.contains(next) else {
                    throw FeedError.transport(url: start, detail: "too many redirects, or a redirect loop")
                }
                permanent = permanent && (status == 301 || status == 308)
                url = next
                continue
            case 200, 304, 410:
                var feed: Feed?
                if status == 200 {
                    switch body {
                    case .parse(let sink): feed = try await parse(response, url: url, sink: sink)
                    case .spool(let spool): try await self.spool(response, url: url, to: spool)
                    }
                }
                return Response(
                    status: status,
                    feed: feed,
                    finalURL: url,
                    movedPermanently: hops > 0 && permanent,
                    etag: response.headers.first(name: "ETag"),
                    lastModified: response.headers.first(name: "Last-Modified")
                )
            case 429, 500...599:
                throw Retryable(
                    error: FeedError.httpStatus(status, url: url),
                    retryAfter: retry.retryAfter(response.headers.first(name: "Retry-After"))
                )
            case 401, 403:
                let host = url.host ?? "?"
                if let sentCredentials {
                    throw FeedError.unauthorized(
                        url: url,
                        detail: "the feed at \(host) refused \(sentCredentials.user)'s password (HTTP \(status))"
                    )
                }
                guard status == 401 else { throw FeedError.httpStatus(status, url: url) }
                throw FeedError.unauthorized(
                    url: url,
                    detail: "the feed at \(host) wants a user name and password",
                    credentialsWanted: true
                )
            default:
                throw FeedError.httpStatus(status, url: url)
            }
        }
    }
}
