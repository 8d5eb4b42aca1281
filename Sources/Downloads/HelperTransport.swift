import CFileIO
import Foundation
import HTTPSupport
import NIOCore
import NIOExtras
import NIOPosix
import Processes
import Synchronization

/// A transport that runs each request in a helper process (feedsh itself, as
/// `feedsh --urlsession-helper`), which answers in ``HelperWire`` frames on a pipe.
///
/// The pipe is read through NIO with the engine's backpressure: a body is read no
/// faster than the engine takes it, the pipe fills, and the helper's writes wait. A
/// body that is dropped, iterated to its end or cancelled closes the pipe, and the
/// helper, writing to a pipe nobody reads, ends (SIGPIPE); ``shutdown()`` ends the
/// ones still running.
public final class HelperTransport: DownloadTransport {
    public let name: String
    /// The helper's path.
    public let program: String
    /// What it is run with, after its name.
    public let arguments: [String]
    private let userAgent: String
    private let connectTimeout: Duration
    private let idleTimeout: Duration
    private let processes = HelperProcesses()

    public init(
        name: String,
        program: String,
        arguments: [String] = [],
        userAgent: String = "feedsh",
        connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30)
    ) {
        self.name = name
        self.program = program
        self.arguments = arguments
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard access(program, X_OK) == 0 else { throw HelperWireError.missing(program: program) }
        let wire = HelperWire.Request(
            request,
            userAgent: userAgent,
            connectTimeout: connectTimeout,
            idleTimeout: idleTimeout
        )
        let line = try JSONEncoder().encode(wire) + Data("\n".utf8)
        let input = try Pipe.make()
        let output = try Pipe.make()
        let null = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        // A session of its own: the terminal's ^C is the shell's to handle, not a
        // signal that would kill a download's helper under it.
        let started = ForegroundProcess.spawn(
            [program] + arguments,
            input: input.read,
            output: output.write,
            error: null >= 0 ? null : nil,
            newSession: true
        )
        close(input.read)
        close(output.write)
        let process: ForegroundProcess
        switch started {
        case .success(let spawned): process = spawned
        case .failure(let error):
            close(input.write)
            close(output.read)
            throw HelperWireError.cannotStart(program: program, errno: error.code.rawValue)
        }
        processes.started(process)
        // The request is a few hundred bytes: the pipe's buffer takes it whole.
        let wrote = line.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
        close(input.write)
        guard wrote == line.count else {
            close(output.read)
            processes.kill(process.pid)
            throw HelperWireError.endedEarly(program: program)
        }

        let head: EventLoopFuture<HelperWire.Head>
        let body: HelperBody
        do {
            (head, body) = try await openFrames(output.read, pid: process.pid)
        } catch {
            // Nobody will read its answer: it would wait to write it for ever.
            processes.kill(process.pid)
            throw error
        }
        do {
            let head = try await withTaskCancellationHandler {
                try await head.get()
            } onCancel: {
                body.connection.close()
            }
            return TransportResponse(status: head.status, headers: head.headers, body: body, url: head.url)
        } catch {
            body.connection.close()
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// Takes the read end of the helper's output into NIO: the head arrives through
    /// a future, the body's bytes through the returned sequence.
    private func openFrames(
        _ fd: Int32,
        pid: pid_t
    ) async throws -> (EventLoopFuture<HelperWire.Head>, HelperBody) {
        let program = self.program
        let (head, channel) = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .takingOwnershipOfDescriptor(input: fd) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let frames = HelperFrameHandler(program: program, head: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes))
                    )
                    try channel.pipeline.syncOperations.addHandler(frames)
                    let async = try NIOAsyncChannel<ByteBuffer, Never>(wrappingChannelSynchronously: channel)
                    return (frames.head.futureResult, async)
                }
            }
        // The channel is closed when the scope of executeThenClose ends: when the
        // connection is done with (HelperConnection.close).
        let (done, finish) = AsyncStream<Void>.makeStream()
        let inbound = await withCheckedContinuation { handOut in
            Task {
                try? await channel.executeThenClose { inbound, _ in
                    handOut.resume(returning: inbound)
                    for await _ in done {}
                }
            }
        }
        let connection = HelperConnection(done: finish, pid: pid, processes: processes)
        return (head, HelperBody(inbound: inbound, connection: connection))
    }

    public func shutdown() async {
        processes.killAll()
    }
}

/// The helpers running, each reaped on a thread of its own when it ends.
///
/// A helper is signalled only while it is in ``running``, under the lock, and the
/// reaper takes it out of the set before it reaps it: until then its pid stays a
/// zombie's and cannot be another process's.
final class HelperProcesses: Sendable {
    private let running = Mutex<Set<pid_t>>([])

    func started(_ process: ForegroundProcess) {
        running.withLock { _ = $0.insert(process.pid) }
        Thread.detachNewThread { [self] in
            var info = siginfo_t()
            while waitid(P_PID, id_t(process.pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
            self.running.withLock { _ = $0.remove(process.pid) }
            _ = process.waitBlocking()
        }
    }

    func kill(_ pid: pid_t) {
        running.withLock { running in
            if running.contains(pid) { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    func killAll() {
        running.withLock { running in
            for pid in running { _ = Glibc.kill(pid, SIGKILL) }
        }
    }
}

/// The two ends of a pipe.
private struct Pipe {
    let read: Int32
    let write: Int32

    static func make() throws -> Pipe {
        var ends: [Int32] = [0, 0]
        guard feedsh_pipe_cloexec(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return Pipe(read: ends[0], write: ends[1])
    }
}

/// One helper's pipe, closed (and the helper ended) when nobody holds it any more:
/// after the body's last byte, a cancellation, or a response dropped unread.
final class HelperConnection: Sendable {
    /// Finishing it ends the scope that holds the channel open.
    let done: AsyncStream<Void>.Continuation
    let pid: pid_t
    let processes: HelperProcesses

    init(done: AsyncStream<Void>.Continuation, pid: pid_t, processes: HelperProcesses) {
        self.done = done
        self.pid = pid
        self.processes = processes
    }

    func close() {
        done.finish()
        // The helper may be waiting on the network rather than on the pipe.
        processes.kill(pid)
    }

    deinit { close() }
}

/// A helper's body: the data frames' bytes, ending with the end frame, or failing
/// with the failure the helper sent or with ``HelperWireError/endedEarly(program:)``.
struct HelperBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let inbound: NIOAsyncChannelInboundStream<ByteBuffer>
    let connection: HelperConnection

    func makeAsyncIterator() -> Iterator {
        Iterator(base: inbound.makeAsyncIterator(), connection: connection)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        let connection: HelperConnection

        mutating func next() async throws -> ByteBuffer? {
            try await withTaskCancellationHandler {
                try await base.next()
            } onCancel: { [connection] in
                connection.close()
            }
        }
    }
}

/// Turns frames into the head's future and the body's bytes. The end frame closes
/// the channel, so the body ends; a failure frame, or the pipe's end before the end
/// frame, is an error the body throws.
private final class HelperFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let program: String
    let head: EventLoopPromise<HelperWire.Head>
    private var state = State.awaitingHead

    enum State { case awaitingHead, body, ended }

    init(program: String, head: EventLoopPromise<HelperWire.Head>) {
        self.program = program
        self.head = head
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame: HelperWire.Frame
        do {
            frame = try HelperWire.Frame(payload: unwrapInboundIn(data))
        } catch {
            fail(context, error)
            return
        }
        switch (state, frame) {
        case (.awaitingHead, .head(let received)):
            state = .body
            head.succeed(received)
        case (.body, .data(let bytes)):
            context.fireChannelRead(wrapInboundOut(bytes))
        case (.body, .end):
            state = .ended
            context.close(promise: nil)
        case (_, .failure(let failure)):
            fail(context, failure)
        case (.ended, _):
            break
        default:
            fail(context, HelperWireError.malformed("frames out of order"))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if state != .ended { fail(context, HelperWireError.endedEarly(program: program)) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, error)
    }

    private func fail(_ context: ChannelHandlerContext, _ error: any Error) {
        let before = state
        state = .ended
        switch before {
        case .awaitingHead: head.fail(error)
        case .body: context.fireErrorCaught(error)
        case .ended: return
        }
        context.close(promise: nil)
    }
}
