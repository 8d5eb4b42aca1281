import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport the original tutorials teach: Foundation's URLSession.
///
/// On Linux only the session-level delegate receives data callbacks (a per-task
/// delegate is ignored) and resume data does not exist, so this transport streams
/// each task's bytes through one session delegate and leaves resuming to the
/// engine's Range requests. URLSession has no backpressure of its own: a task is
/// suspended while more than `highWater` bytes wait for the consumer and resumed
/// when they drop below `lowWater`.
public final class URLSessionTransport: DownloadTransport {
    public let name = "urlsession"
    private let session: URLSession
    private let delegate: SessionDelegate

    public init(connectTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(30)) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = Double(idleTimeout.nanoseconds) / 1e9
        configuration.httpAdditionalHeaders = ["User-Agent": DownloadEngineInfo.userAgent]
        delegate = SessionDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let task = session.dataTask(with: urlRequest)
        let state = TaskState(task: task)
        delegate.register(state, for: task.taskIdentifier)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.awaitHead(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    public func shutdown() async {
        session.invalidateAndCancel()
    }
}

/// What one data task has delivered, shared between URLSession's delegate queue and
/// the consumer.
final class TaskState: Sendable {
    static let highWater = 4 << 20
    static let lowWater = 1 << 20

    private struct Guarded {
        var head: CheckedContinuation<TransportResponse, any Error>?
        var buffered = 0
        var suspended = false
    }

    // URLSessionTask is thread-safe (its methods may be called from any thread) but
    // not marked Sendable in FoundationNetworking.
    nonisolated(unsafe) let task: URLSessionDataTask
    private let guarded = Mutex(Guarded())
    let chunks: AsyncThrowingStream<ByteBuffer, any Error>
    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation

    init(task: URLSessionDataTask) {
        self.task = task
        (chunks, continuation) = AsyncThrowingStream.makeStream()
        continuation.onTermination = { [task] termination in
            if case .cancelled = termination { task.cancel() }
        }
    }

    func awaitHead(_ head: CheckedContinuation<TransportResponse, any Error>) {
        guarded.withLock { $0.head = head }
    }

    func received(_ response: URLResponse) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let head = TransportResponse(status: http?.statusCode ?? 0, headers: headers, body: Body(state: self))
        guarded.withLock { state in
            let continuation = state.head
            state.head = nil
            return continuation
        }?.resume(returning: head)
    }

    func received(_ data: Data) {
        let shouldSuspend = guarded.withLock { state -> Bool in
            state.buffered += data.count
            guard state.buffered > Self.highWater, !state.suspended else { return false }
            state.suspended = true
            return true
        }
        continuation.yield(ByteBuffer(data: data))
        if shouldSuspend { task.suspend() }
    }

    func consumed(_ count: Int) {
        let shouldResume = guarded.withLock { state -> Bool in
            state.buffered -= count
            guard state.suspended, state.buffered < Self.lowWater else { return false }
            state.suspended = false
            return true
        }
        if shouldResume { task.resume() }
    }

    func completed(_ error: (any Error)?) {
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

    /// The body as the engine reads it: each chunk taken frees buffer space.
    struct Body: AsyncSequence, Sendable {
        let state: TaskState

        func makeAsyncIterator() -> Iterator {
            Iterator(state: state, base: state.chunks.makeAsyncIterator())
        }

        struct Iterator: AsyncIteratorProtocol {
            let state: TaskState
            var base: AsyncThrowingStream<ByteBuffer, any Error>.Iterator

            mutating func next() async throws -> ByteBuffer? {
                guard let chunk = try await base.next() else { return nil }
                state.consumed(chunk.readableBytes)
                return chunk
            }
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

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let state = tasks.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        state?.completed(error)
    }
}
