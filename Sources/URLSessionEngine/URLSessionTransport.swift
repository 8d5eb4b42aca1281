import Downloads
import Foundation
import HTTPSupport
import NIOCore
import NIOFoundationCompat
import Synchronization
import WebBasics

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport the original tutorials teach: Foundation's URLSession.
///
/// On Linux only the session-level delegate receives data callbacks (a per-task
/// delegate is ignored) and resume data does not exist, so this transport streams
/// each task's bytes through one session delegate and leaves resuming to the
/// engine's Range requests.
///
/// URLSession has no backpressure, and `suspend()` during a fast transfer crashes
/// FoundationNetworking (curl keeps delivering data to a task it has marked paused).
/// So the body is fetched in windows of `window` bytes with Range requests, the next
/// one only when the engine has taken the previous one, and stitched into the one
/// response the engine asked for. Every window after the first carries `If-Range`
/// with the first one's validator, so a file that changes midway is noticed. A
/// server that ignores Range gets a plain streaming request.
public final class URLSessionTransport: DownloadTransport {
    public let name = "urlsession"
    /// Bytes per Range window: the most this transport holds in memory per download.
    static let window: Int64 = 8 << 20
    private let session: URLSession
    private let delegate: SessionDelegate
    /// The proxies, to name the one that failed: libcurl, under FoundationNetworking,
    /// reads the same variables by the same (curl's) rules and sends through them
    /// by itself.
    private let proxies: ProxyEnvironment

    public init(
        userAgent: String = "feedsh",
        connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30),
        proxies: ProxyEnvironment = .direct
    ) {
        self.proxies = proxies
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = idleTimeout / .seconds(1)
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent]
        delegate = SessionDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let rangeHeader = request.headers.first { $0.name.lowercased() == "range" }?.value
        let ifRange = request.headers.first { $0.name.lowercased() == "if-range" }?.value
        let others = request.headers.filter { !["range", "if-range"].contains($0.name.lowercased()) }
        guard let start = rangeHeader.map(Self.openRangeStart) ?? 0 else {
            return try await fetch(request)  // a Range form the windows do not cover
        }
        var offset = start
        var head = try await fetchWindow(request.url, from: offset, ifRange: ifRange, headers: others)
        if head.status == 200, ifRange != nil {
            // The validator no longer matches: the engine starts over; so do the windows.
            (head.body as? TaskState.Body)?.state.task.cancel()
            offset = 0
            head = try await fetchWindow(request.url, from: 0, ifRange: nil, headers: others)
        }
        guard head.status == 206, let range = ContentRange(head.header("content-range")), range.start == offset,
            let total = range.total
        else {
            return head  // 200 from a server without ranges, 416, errors: as they are
        }
        var headers = head.headers
        let partial = offset > 0 && offset == start
        if partial {
            headers["content-range"] = "bytes \(offset)-\(total - 1)/\(total)"
        } else {
            headers["content-range"] = nil
        }
        headers["content-length"] = String(total - offset)
        let validator = head.header("etag").flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? head.header("last-modified")
        let windows = WindowedBody(
            first: head.body,
            next: range.end + 1,
            total: total,
            fetch: { [self] from in
                let next = try await fetchWindow(request.url, from: from, ifRange: validator, headers: others)
                guard next.status == 206, ContentRange(next.header("content-range"))?.start == from else {
                    (next.body as? TaskState.Body)?.state.task.cancel()
                    throw URLSessionTransportError.changedDuringDownload(status: next.status)
                }
                return next.body
            }
        )
        return TransportResponse(status: partial ? 206 : 200, headers: headers, body: windows, url: head.url)
    }

    private func fetchWindow(
        _ url: URL,
        from start: Int64,
        ifRange: String?,
        headers: [(name: String, value: String)]
    ) async throws -> TransportResponse {
        var windowHeaders = headers
        windowHeaders.append(("Range", "bytes=\(start)-\(start + Self.window - 1)"))
        if let ifRange { windowHeaders.append(("If-Range", ifRange)) }
        return try await fetch(TransportRequest(url: url, headers: windowHeaders))
    }

    private func fetch(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let task = session.dataTask(with: urlRequest)
        let state = TaskState(task: task, url: request.url, proxy: proxies.proxy(for: request.url))
        delegate.register(state, for: task.taskIdentifier)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if state.awaitHead(continuation) { task.resume() }
            }
        } onCancel: {
            state.cancel()
        }
    }

    /// `bytes=N-` gives N; any other Range form gives nil.
    static func openRangeStart(_ header: String) -> Int64? {
        guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
        return Int64(header.dropFirst(6).dropLast())
    }

    public func shutdown() async {
        session.invalidateAndCancel()
    }

    /// A `URLError` in the vocabulary every transport shares; a cancelled task is a
    /// `CancellationError`.
    static func failure(_ error: any Error, url: URL, proxy: ProxyServer? = nil) -> any Error {
        guard let error = error as? URLError else { return error }
        let reason: NetworkFailure.Reason
        switch error.code {
        case .cancelled: return CancellationError()
        case .cannotConnectToHost: reason = .connectionRefused
        case .cannotFindHost, .dnsLookupFailed: reason = .unknownHost
        case .notConnectedToInternet: reason = .unreachable
        case .timedOut: reason = .stalled
        case .networkConnectionLost: reason = .connectionDropped
        case .httpTooManyRedirects: reason = .tooManyRedirects
        case .redirectToNonExistentLocation: reason = .redirectLoop
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            reason = .tls(error.localizedDescription)
        default: reason = .other(error.localizedDescription)
        }
        return NetworkFailure(reason, url: url, proxy: proxy)
    }
}

/// A window after the first did not continue the same file.
enum URLSessionTransportError: Error, CustomStringConvertible {
    case changedDuringDownload(status: Int)

    var description: String {
        switch self {
        case .changedDuringDownload(let status):
            "the file changed during the download (HTTP \(status) for the next range)"
        }
    }
}

/// The windows of one response as one body: the next window is requested only when
/// the previous one has been read to its end.
struct WindowedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let first: any AsyncSequence<ByteBuffer, any Error> & Sendable
    let next: Int64
    let total: Int64
    let fetch: @Sendable (Int64) async throws -> any AsyncSequence<ByteBuffer, any Error> & Sendable

    func makeAsyncIterator() -> Iterator {
        Iterator(current: first.makeAsyncIterator(), next: next, total: total, fetch: fetch)
    }

    struct Iterator: AsyncIteratorProtocol {
        var current: any AsyncIteratorProtocol<ByteBuffer, any Error>
        var next: Int64
        let total: Int64
        let fetch: @Sendable (Int64) async throws -> any AsyncSequence<ByteBuffer, any Error> & Sendable

        mutating func next() async throws -> ByteBuffer? {
            while true {
                if let chunk = try await current.next() {
                    return chunk
                }
                guard next < total else { return nil }
                let body = try await fetch(next)
                next = Swift.min(total, next + URLSessionTransport.window)
                current = body.makeAsyncIterator()
            }
        }
    }
}

/// What one data task has delivered, shared between URLSession's delegate queue and
/// the consumer.
final class TaskState: Sendable {
    private struct Guarded {
        var head: CheckedContinuation<TransportResponse, any Error>?
        var cancelled = false
    }

    let task: URLSessionDataTask
    let url: URL
    /// The proxy the request goes through, to name it when it cannot be reached.
    let proxy: ProxyServer?
    private let guarded = Mutex(Guarded())
    let chunks: AsyncThrowingStream<ByteBuffer, any Error>
    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation

    init(task: URLSessionDataTask, url: URL, proxy: ProxyServer?) {
        self.task = task
        self.url = url
        self.proxy = proxy
        (chunks, continuation) = AsyncThrowingStream.makeStream()
        continuation.onTermination = { [task] termination in
            if case .cancelled = termination { task.cancel() }
        }
    }

    /// Keeps `head` until the response's head arrives; false (and `head` resumed
    /// with a `CancellationError`) when the task was cancelled already, so that it
    /// is never started.
    func awaitHead(_ head: CheckedContinuation<TransportResponse, any Error>) -> Bool {
        let cancelled = guarded.withLock { state in
            if !state.cancelled { state.head = head }
            return state.cancelled
        }
        if cancelled { head.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// Ends the wait for the head and the body with a `CancellationError`, then
    /// cancels the data task. FoundationNetworking calls back nothing for a task
    /// cancelled before it was resumed, so the wait cannot rely on the delegate
    /// (seen: a pause at that moment waited forever).
    func cancel() {
        let head = guarded.withLock { state in
            state.cancelled = true
            let continuation = state.head
            state.head = nil
            return continuation
        }
        head?.resume(throwing: CancellationError())
        continuation.finish(throwing: CancellationError())
        task.cancel()
    }

    func received(_ response: URLResponse) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let head = TransportResponse(
            status: http?.statusCode ?? 0,
            headers: headers,
            body: Body(state: self),
            url: response.url ?? url
        )
        guarded.withLock { state in
            let continuation = state.head
            state.head = nil
            return continuation
        }?.resume(returning: head)
    }

    func received(_ data: Data) {
        continuation.yield(ByteBuffer(data: data))
    }

    func completed(_ error: (any Error)?) {
        let error = error.map { URLSessionTransport.failure($0, url: url, proxy: proxy) }
        let head = guarded.withLock { state in
            let continuation = state.head
            state.head = nil
            return continuation
        }
        if let head {
            head.resume(throwing: error ?? URLError(.badServerResponse))
        }
        continuation.finish(throwing: error)
    }

    /// One task's body; keeps the task reachable so that it can be cancelled.
    struct Body: AsyncSequence, Sendable {
        let state: TaskState

        func makeAsyncIterator() -> AsyncThrowingStream<ByteBuffer, any Error>.Iterator {
            state.chunks.makeAsyncIterator()
        }
    }
}

/// The one delegate of the session, routing callbacks to each task's state.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let tasks = Mutex<[Int: TaskState]>([:])

    func register(_ state: TaskState, for identifier: Int) {
        tasks.withLock { $0[identifier] = state }
    }

    private func state(_ task: URLSessionTask) -> TaskState? {
        tasks.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        state(dataTask)?.received(response)
        completionHandler(.allow)
    }

    /// Redirects are followed to http and https only. FoundationNetworking reads a
    /// `Location` of `file:///etc/passwd` as a path on the same server (seen: it
    /// asked for `/etc/passwd` there), so the header itself is judged. Refused,
    /// the 3xx itself is the response, and the engine says where it pointed.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let location = response.allHeaderFields.first { ($0.key as? String)?.lowercased() == "location" }?.value
        let target = (location as? String).flatMap { URL(string: $0, relativeTo: response.url) }?.absoluteURL
        guard target.map(NetworkFailure.isFetchable) != false else { return completionHandler(nil) }
        // A private feed's credentials stay on their origin (curl's rule since
        // CVE-2018-1000007); FoundationNetworking would carry them along.
        var next = request
        if let from = task.currentRequest?.url ?? task.originalRequest?.url, let to = request.url,
            from.origin != to.origin
        {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let state = tasks.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        state?.completed(error)
    }
}
