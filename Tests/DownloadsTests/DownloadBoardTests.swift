import Downloads
import FixtureServer
import Foundation
import SocketTestSupport
import Synchronization
import Testing

/// What an observer of a board saw, in order.
private final class Observed: Sendable {
    private let changes = Mutex<[(event: DownloadEvent, holder: DownloadHolder, aftermath: String?)]>([])

    func append(_ change: DownloadChange<String>) {
        changes.withLock { $0.append((change.event, change.holder, change.aftermath)) }
    }

    var all: [(event: DownloadEvent, holder: DownloadHolder, aftermath: String?)] { changes.withLock { $0 } }
}

/// A background feedsh as the board reaches it: answers as told, records what it
/// was asked; `reachable: false` is one that went away.
private final class FakeRemote: RemoteDownloads {
    let reachable: Bool
    private let state:
        Mutex<(asked: [(RemoteOperation, [DownloadID])], holds: [DownloadID: (DownloadRequest, DownloadManager.State)])>

    init(reachable: Bool = true, holds: [(DownloadRequest, DownloadManager.State)] = []) {
        self.reachable = reachable
        state = Mutex(([], Dictionary(holds.map { ($0.0.id, $0) }) { first, _ in first }))
    }

    var asked: [(RemoteOperation, [DownloadID])] { state.withLock { $0.asked } }

    func request(_ operation: RemoteOperation, _ ids: [DownloadID]) async -> [(DownloadRequest, DownloadManager.State)]?
    {
        guard reachable else { return nil }
        return state.withLock { state in
            state.asked.append((operation, ids))
            return ids.compactMap { id in
                guard let (request, before) = state.holds[id] else { return nil }
                let after: DownloadManager.State =
                    switch (operation, before) {
                    case (.pause, .running(let progress)): .paused(bytes: progress?.bytes ?? 0, total: progress?.total)
                    case (.resume, _): .running(nil)
                    case (.cancel, _): .cancelled
                    default: before
                    }
                state.holds[id] = (request, after)
                return (request, after)
            }
        }
    }
}

/// A fixture server, a manager and a board whose observer is slow on purpose: what
/// `settle` promises (the news observed before it returns) only shows when
/// observing takes time.
private struct BoardHarness {
    let server: FixtureServer
    let board: DownloadBoard<String>
    let layout: DownloadLayout
    let observed: Observed

    static func run(_ body: (BoardHarness) async throws -> Void) async throws {
        let server = try await FixtureServer.start()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-board-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = DownloadManager(transport: AsyncHTTPClientTransport(idleTimeout: .seconds(10)), maxConcurrent: 2)
        let board = DownloadBoard<String>(engine: manager)
        let observed = Observed()
        let runner = Task {
            await board.run(finish: { id in "finished \(id)" }) { change in
                if case .completed = change.event { try? await Task.sleep(for: .milliseconds(300)) }
                observed.append(change)
            }
        }
        let harness = BoardHarness(server: server, board: board, layout: DownloadLayout(root: root), observed: observed)
        do {
            try await body(harness)
        } catch {
            await manager.shutdown()
            await server.stop()
            throw error
        }
        await manager.shutdown()
        await runner.value
        await server.stop()
    }

    func request(_ name: String, size: Int, episode: Int64, fault: String? = nil) -> DownloadRequest {
        let prefix = fault.map { "/fault/\($0)" } ?? ""
        return DownloadRequest(
            id: DownloadID(name),
            url: server.url("\(prefix)/media/t/\(name).mp3?size=\(size)"),
            file: layout.file(podcastID: 1, episodeID: episode, extension: "mp3")
        )
    }

    /// `settle`, failing the test instead of hanging when it never returns.
    func settle(_ requests: [DownloadRequest]?, within limit: Duration = .seconds(20)) async -> Bool {
        let board = board
        return await within(limit) { await board.settle(requests) } != nil
    }
}

@Suite("One view of every download")
struct DownloadBoardTests {
    @Test func settleReturnsAfterTheNewsOfTheEndWasObserved() async throws {
        try await BoardHarness.run { h in
            let requests = [h.request("a", size: 200_000, episode: 1), h.request("b", size: 300_000, episode: 2)]
            await h.board.engine.start(requests)
            #expect(await h.settle(requests))
            let completed = h.observed.all.filter { if case .completed = $0.event { true } else { false } }
            #expect(completed.count == 2)
            // What finishing did rides on the change: the shell announces it.
            #expect(Set(completed.compactMap(\.aftermath)) == ["finished a", "finished b"])
            #expect(completed.allSatisfy { $0.holder == .here })
            #expect(await h.board.view(of: requests[0])?.state == .completed(bytes: 200_000))
        }
    }

    @Test func settleWithNothingRunningReturnsAtOnce() async throws {
        try await BoardHarness.run { h in
            #expect(await h.settle(nil, within: .seconds(20)))
            #expect(await h.settle([h.request("never", size: 10, episode: 3)], within: .seconds(20)))
        }
    }

    /// The background feedsh's downloads are waited for like this engine's, and its
    /// news goes through the same observer, marked as the background's.
    @Test func theBackgroundsDownloadsAreWaitedForAndObserved() async throws {
        try await BoardHarness.run { h in
            let request = h.request("far", size: 1_000, episode: 4)
            await h.board.remoteChanged(request, state: .running(nil), event: .started(id: "far", offset: 0))
            #expect(await h.board.view(of: request)?.holder == .background)
            #expect(await h.board.all().map(\.holder) == [.background])
            let waiting = Task { await h.settle([request]) }
            try await Task.sleep(for: .milliseconds(200))
            await h.board.remoteChanged(
                request,
                state: .completed(bytes: 1_000),
                event: .completed(id: "far", bytes: 1_000, file: request.file.final)
            )
            #expect(await waiting.value)
            let last = try #require(h.observed.all.last)
            #expect(last.holder == .background && last.aftermath == nil)
            #expect(last.event == .completed(id: "far", bytes: 1_000, file: request.file.final))
        }
    }

    /// A background feedsh that goes away (killed) releases whoever waited on it,
    /// and what it said last is no one's state.
    @Test func aBackgroundThatGoesAwayReleasesTheWait() async throws {
        try await BoardHarness.run { h in
            let request = h.request("gone", size: 1_000, episode: 5)
            await h.board.remoteConnected([(request, .running(nil))], control: FakeRemote())
            let waiting = Task { await h.settle([request]) }
            try await Task.sleep(for: .milliseconds(200))
            await h.board.remoteGone()
            #expect(await waiting.value)
            #expect(await h.board.view(of: request) == nil)
        }
    }

    /// A download another process holds the lock of counts as running there until
    /// the lock is let go.
    @Test func aDownloadAnotherProcessHoldsIsWaitedForUntilItsLockGoes() async throws {
        try await BoardHarness.run { h in
            let request = h.request("held", size: 1_000, episode: 6)
            try FileManager.default.createDirectory(
                at: request.file.final.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            // Another holder of the lock: a descriptor of its own (flock locks belong
            // to an open file, so this process's own lock counts as another's).
            let fd = open(request.file.part.path, O_RDWR | O_CREAT, 0o644)
            try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
            #expect(await h.board.view(of: request)?.holder == .elsewhere(pid: getpid()))
            let waiting = Task { await h.settle([request]) }
            try await Task.sleep(for: .milliseconds(500))
            close(fd)
            #expect(await waiting.value)
            #expect(await h.board.view(of: request) == nil)
        }
    }

    /// Ctrl-C stops waiting, not the downloads.
    @Test func cancellingSettleStopsOnlyTheWait() async throws {
        try await BoardHarness.run { h in
            let request = h.request("slow", size: 2_000_000, episode: 7, fault: "rate=200000")
            await h.board.engine.start(request)
            let waiting = Task { await h.board.settle([request]) }
            try await Task.sleep(for: .milliseconds(200))
            waiting.cancel()
            await waiting.value
            #expect(await h.board.view(of: request)?.state.isActive == true)
        }
    }

    /// pause, resume and cancel reach a download where it is held: the background
    /// feedsh is asked for its own, this engine never is; one it holds while gone
    /// says so.
    @Test func operationsReachTheBackgroundsDownloads() async throws {
        try await BoardHarness.run { h in
            let running = h.request("there-running", size: 1_000, episode: 8)
            let paused = h.request("there-paused", size: 1_000, episode: 9)
            let progress = DownloadProgress(bytes: 400, total: 1_000, bytesPerSecond: nil)
            let remote = FakeRemote(holds: [(running, .running(progress)), (paused, .paused(bytes: 300, total: 1_000))])
            await h.board.remoteConnected(
                [(running, .running(progress)), (paused, .paused(bytes: 300, total: 1_000))],
                control: remote
            )
            #expect(await h.board.pause(running) == .paused(bytes: 400, total: 1_000, holder: .background))
            #expect(await h.board.view(of: running)?.state == .paused(bytes: 400, total: 1_000))
            #expect(await h.board.resumeWhereHeld(paused) == .paused(bytes: 300, total: 1_000))
            // Not held there: for this engine to start.
            #expect(await h.board.resumeWhereHeld(h.request("here", size: 10, episode: 10)) == nil)
            #expect(
                await h.board.cancelWhereHeld([running, paused, h.request("here", size: 10, episode: 10)])
                    == ["there-running": true, "there-paused": true]
            )
            #expect(remote.asked.map(\.1) == [["there-running"], ["there-paused"], ["there-running", "there-paused"]])
            #expect(await h.board.pause(h.request("nothing", size: 10, episode: 11)) == .notRunning)

            let gone = h.request("gone-away", size: 1_000, episode: 12)
            await h.board.remoteConnected([(gone, .running(nil))], control: FakeRemote(reachable: false))
            #expect(await h.board.pause(gone) == .unreachable)
            #expect(await h.board.cancelWhereHeld([gone]) == ["gone-away": false])
        }
    }
}
