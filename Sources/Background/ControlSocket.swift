import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import Synchronization

/// Where the background process listens and what keeps it single:
/// `$XDG_RUNTIME_DIR/feedsh/` (else `$XDG_STATE_HOME/feedsh/`) holds `control.sock`
/// and `control.lock`, in a directory only this user may enter.
public struct ControlPaths: Sendable, Equatable {
    public let directory: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            directory = runtime + "/feedsh"
        } else {
            directory = Self.stateDirectory(environment: environment)
        }
    }

    /// `$XDG_STATE_HOME/feedsh` (`~/.local/state/feedsh` when unset): the fallback
    /// for the socket, and where the background process's log goes.
    public static func stateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        return state + "/feedsh"
    }

    public var socket: String { directory + "/control.sock" }
    /// Held (flock) by the background process for as long as it runs.
    public var lock: String { directory + "/control.lock" }

    /// Makes the directory (0700) if needed and checks that it is this user's and
    /// closed to others: a socket in it is reachable by this user only.
    public func prepare() throws(ControlError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            if errno == ENOENT {
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            if access(directory, F_OK) != 0 { throw .unusable(directory, "cannot create it: \(Self.errorText())") }
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else { throw .unusable(directory, Self.errorText()) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .unusable(directory, "it is not a directory") }
        guard info.st_uid == getuid() else { throw .unusable(directory, "it belongs to another user") }
        if info.st_mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
            throw .unusable(directory, "others may enter it and it cannot be closed to them")
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// Why the control socket cannot be used.
public enum ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    case unusable(String, String)
    /// Nothing listens on the socket (no background process, or a stale socket).
    case notRunning
    /// The connection ended before the answer.
    case disconnected
    case refused(code: String, message: String)

    public var description: String {
        switch self {
        case .unusable(let path, let reason): "cannot use \(path) for the background process: \(reason)"
        case .notRunning: "no background feedsh is running"
        case .disconnected: "the background feedsh went away"
        case .refused(_, let message): "the background feedsh refused: \(message)"
        }
    }
}

/// A lock file held with `flock`: the background process holds `control.lock`, so
/// that there is one per user, and a socket whose lock is free is stale.
public final class ControlLock: Sendable {
    private let fd: Int32

    /// Takes the lock, or nil when another process holds it.
    public init?(path: String) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether some process holds the lock at `path` now.
    public static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }
}

/// Lines in, lines out, over one Unix-socket connection.
typealias LineChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

/// Adds line framing (with a limit) and wraps a connection for async use.
func lineChannel(_ channel: any Channel) -> EventLoopFuture<LineChannel> {
    channel.eventLoop.makeCompletedFuture {
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: ControlProtocol.maximumLine)
        )
        return try LineChannel(wrappingChannelSynchronously: channel)
    }
}

/// The background process's side: answers requests and, to subscribers, sends
/// every download's changes. A malformed or hostile line gets an error reply; it
/// never stops the server.
public final class ControlServer: Sendable {
    /// Answers one request (not `subscribe`, which the server handles).
    public typealias Handler = @Sendable (ControlRequest) async -> Result<ControlMessage.Result, ControlMessage.Failure>

    private let serving: Task<Void, Never>
    private let listener: any Channel
    /// Finishes when the listening socket has closed and every connection it
    /// accepted is being served.
    private let acceptEnded: AsyncStream<Void>
    private let subscribers: Subscribers
    private let peers: Peers

    /// Binds the socket at `path` (replacing a file there: the caller holds the
    /// lock, so any socket left there is stale) and serves until ``stop()``.
    public static func start(path: String, handler: @escaping Handler) async throws -> ControlServer {
        unlink(path)
        let previous = umask(0o077)
        defer { umask(previous) }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: path) { channel in lineChannel(channel) }
        return ControlServer(server, handler: handler)
    }

    private init(_ server: NIOAsyncChannel<LineChannel, Never>, handler: @escaping Handler) {
        let subscribers = Subscribers()
        let peers = Peers()
        let (acceptEnded, acceptEnding) = AsyncStream<Void>.makeStream()
        self.subscribers = subscribers
        self.peers = peers
        self.listener = server.channel
        self.acceptEnded = acceptEnded
        serving = Task {
            try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask {
                                peers.count.withLock { $0 += 1 }
                                await Self.serve(connection, handler: handler, subscribers: subscribers)
                                peers.count.withLock { $0 -= 1 }
                            }
                        }
                    } catch {
                        // The listening socket failed.
                    }
                    acceptEnding.finish()
                }
            }
            acceptEnding.finish()
        }
    }

    /// How many clients are connected now.
    public var clients: Int { peers.count.withLock { $0 } }

    /// How many clients asked for events.
    public var subscribed: Int { subscribers.count }

    /// Sends a download's new state to every subscriber.
    public func publish(_ download: ControlDownload) {
        subscribers.send(.event(download))
    }

    /// Closes the socket and every connection. The listening socket closes first
    /// and every connection it accepted is taken up before the rest is cancelled:
    /// cancelling with an accepted connection not yet taken crashes in NIO
    /// ("Deinited NIOAsyncWriter without calling finish()", swift-nio #3481).
    public func stop() async {
        try? await listener.close()
        for await _ in acceptEnded {}
        serving.cancel()
        subscribers.finish()
        await serving.value
    }

    private static func serve(_ connection: LineChannel, handler: Handler, subscribers: Subscribers) async {
        try? await connection.executeThenClose { inbound, outbound in
            var subscription: Task<Void, Never>?
            defer { subscription?.cancel() }
            do {
                for try await line in inbound {
                    let reply: ControlMessage
                    switch ControlRequest.parse(Array(line.readableBytesView)) {
                    case .failure(let error):
                        reply = .failure(error.id, code: "bad-request", error.message)
                    case .success(let request) where request.op == .subscribe:
                        if subscription == nil {
                            let events = subscribers.add()
                            subscription = Task {
                                for await message in events {
                                    try? await outbound.write(ByteBuffer(string: message.line))
                                }
                            }
                        }
                        reply = .reply(request.id, .init())
                    case .success(let request):
                        switch await handler(request) {
                        case .success(let result): reply = .reply(request.id, result)
                        case .failure(let failure): reply = .failure(request.id, code: failure.code, failure.message)
                        }
                    }
                    try await outbound.write(ByteBuffer(string: reply.line))
                }
            } catch {
                // A line over the limit, or the peer went away: this connection ends
                // (closed, without a reply that the peer may not be reading).
            }
        }
    }
}

/// How many connections are open.
private final class Peers: Sendable {
    let count = Mutex(0)
}

/// The connections that asked for events.
private final class Subscribers: Sendable {
    private let state = Mutex<(next: Int, streams: [Int: AsyncStream<ControlMessage>.Continuation])>((0, [:]))

    func add() -> AsyncStream<ControlMessage> {
        let (stream, continuation) = AsyncStream<ControlMessage>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = state.withLock { state in
            state.next += 1
            state.streams[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func send(_ message: ControlMessage) {
        for continuation in state.withLock({ Array($0.streams.values) }) { continuation.yield(message) }
    }

    var count: Int { state.withLock { $0.streams.count } }

    func finish() {
        for continuation in state.withLock({ Array($0.streams.values) }) { continuation.finish() }
    }
}

/// A shell's side: requests with their replies, and the events after `subscribe`.
public actor ControlClient {
    private var outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>?
    private var pending: [Int: CheckedContinuation<ControlMessage, Never>] = [:]
    private var nextID = 0
    private var closed = false
    private var connection: Task<Void, Never>?
    /// Download changes, once subscribed; finishes when the connection ends.
    public nonisolated let events: AsyncStream<ControlDownload>
    private let eventSink: AsyncStream<ControlDownload>.Continuation

    private init() {
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1000))
    }

    /// Connects to the socket at `path`; ``ControlError/notRunning`` when nothing
    /// listens there.
    public static func connect(path: String) async throws(ControlError) -> ControlClient {
        let channel: LineChannel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in lineChannel(channel) }
        } catch {
            throw .notRunning
        }
        let client = ControlClient()
        await client.run(channel)
        return client
    }

    private func run(_ channel: LineChannel) async {
        let (ready, readySignal) = AsyncStream<NIOAsyncChannelOutboundWriter<ByteBuffer>>.makeStream()
        connection = Task {
            try? await channel.executeThenClose { inbound, outbound in
                readySignal.yield(outbound)
                readySignal.finish()
                for try await line in inbound {
                    guard
                        let message = try? JSONDecoder().decode(
                            ControlMessage.self,
                            from: Data(line.readableBytesView)
                        )
                    else { continue }
                    self.received(message)
                }
            }
            self.disconnected()
        }
        for await writer in ready { outbound = writer }
    }

    private func received(_ message: ControlMessage) {
        if let event = message.event {
            eventSink.yield(event)
        } else if let id = message.id, let continuation = pending.removeValue(forKey: id) {
            continuation.resume(returning: message)
        }
    }

    private func disconnected() {
        closed = true
        for continuation in pending.values {
            continuation.resume(returning: .failure(nil, code: "disconnected", "the connection ended"))
        }
        pending = [:]
        eventSink.finish()
    }

    /// Sends a request and waits for its reply.
    public func request(
        _ op: ControlRequest.Operation,
        ids: [String]? = nil,
        downloads: [HandedDownload]? = nil
    ) async throws(ControlError) -> ControlMessage.Result {
        guard !closed, let outbound else { throw .disconnected }
        nextID += 1
        let request = ControlRequest(id: nextID, op: op, ids: ids, downloads: downloads)
        let reply = await withCheckedContinuation { continuation in
            pending[request.id] = continuation
            Task { try? await outbound.write(ByteBuffer(string: request.line)) }
        }
        if let error = reply.error {
            throw error.code == "disconnected" ? .disconnected : .refused(code: error.code, message: error.message)
        }
        return reply.result ?? .init()
    }

    /// Closes the connection.
    public func close() async {
        connection?.cancel()
        await connection?.value
    }
}
