import Downloads
import FixtureServer
import Foundation
import HTTPSupport
import SocketTestSupport
import Synchronization
import Testing
import URLSessionEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports under test: every engine test runs against each.
enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case ahc
    case urlsession

    func makeTransport() -> any DownloadTransport {
        switch self {
        case .ahc: AsyncHTTPClientTransport(idleTimeout: .seconds(10))
        case .urlsession: URLSessionTransport(idleTimeout: .seconds(10))
        }
    }

    var testDescription: String { rawValue }
}

/// A fixture server, a download folder and a manager, torn down after the test.
struct EngineHarness {
    let server: FixtureServer
    let manager: DownloadManager
    let layout: DownloadLayout
    let events: EventLog

    static let fastRetries = RetryPolicy(attempts: 5, baseDelay: .milliseconds(20), maxDelay: .seconds(2))

    static func run(
        _ engine: Engine,
        maxConcurrent: Int = 3,
        policy: RetryPolicy = fastRetries,
        maxFileSize: Int64 = DownloadManager.defaultMaxFileSize,
        _ body: (EngineHarness) async throws -> Void
    ) async throws {
        let server = try await FixtureServer.start()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-dl-\(UUID().uuidString)")
        let manager = DownloadManager(
            transport: engine.makeTransport(),
            maxConcurrent: maxConcurrent,
            policy: policy,
            maxFileSize: maxFileSize
        )
        let events = EventLog(manager.events)
        let harness = EngineHarness(
            server: server,
            manager: manager,
            layout: DownloadLayout(root: root),
            events: events
        )
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            try await body(harness)
        } catch {
            await manager.shutdown()
            await server.stop()
            throw error
        }
        await manager.shutdown()
        await server.stop()
    }

    /// A request for synthetic media `name` of `size` bytes behind `fault`.
    func request(
        _ name: String,
        size: Int,
        fault: String? = nil,
        id: String? = nil,
        declared: Int64? = nil
    ) -> DownloadRequest {
        let prefix = fault.map { "/fault/\($0)" } ?? ""
        return DownloadRequest(
            id: DownloadID(id ?? name),
            url: server.url("\(prefix)/media/t/\(name).mp3?size=\(size)"),
            file: layout.file(podcastID: 1, episodeID: Int64(abs(name.hashValue % 1_000_000)), extension: "mp3"),
            declaredLength: declared
        )
    }

    /// A request for an image of the fixture server at `path`, kept as
    /// `images/{name}`, that must be an image.
    func imageRequest(_ path: String, name: String, cached: Validators? = nil) -> DownloadRequest {
        DownloadRequest(
            id: "img",
            url: server.url(path),
            file: DownloadLayout.File(final: layout.root.appendingPathComponent("images/\(name)")),
            cached: cached,
            requiredType: "image/"
        )
    }

    func expectedBytes(_ name: String, size: Int, version: Int = 0) -> Data {
        Data(SyntheticMedia(key: "t/\(name).mp3", version: version, size: size).allBytes)
    }

    /// Polls until a running download has at least `bytes` on disk.
    func waitForBytes(_ id: DownloadID, atLeast bytes: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if case .running(let progress?) = await manager.state(of: id), progress.bytes >= bytes { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(id) never reached \(bytes) bytes")
    }

    /// Starts and waits; returns the final state.
    func download(_ request: DownloadRequest) async -> DownloadManager.State? {
        await manager.start(request)
        await settle([request.id])
        return await manager.state(of: request.id)
    }

    /// Waits until `ids` are idle, for at most `limit`: a download that never
    /// settles fails the test (naming its state and last events) instead of
    /// hanging the run.
    func settle(_ ids: [DownloadID], within limit: Duration = .seconds(60)) async {
        await settleDownloads(manager, ids, within: limit, events: events)
    }

    /// Starts and waits, expecting a failure; records an issue otherwise.
    func failure(_ request: DownloadRequest) async -> DownloadError? {
        let state = await download(request)
        guard case .failed(let error) = state else {
            Issue.record("expected a failure, got \(String(describing: state))")
            return nil
        }
        return error
    }

    /// Writes a `.part` and sidecar as an earlier run would have left them.
    func leavePartial(
        _ request: DownloadRequest,
        bytes: Data,
        etag: String?,
        lastModified: String? = nil,
        expected: Int64?
    ) throws {
        try FileManager.default.createDirectory(
            at: request.file.final.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try bytes.write(to: request.file.part)
        var sidecar: [String: Any] = ["url": request.url.absoluteString, "confirmedBytes": bytes.count]
        if let etag { sidecar["etag"] = etag }
        if let lastModified { sidecar["lastModified"] = lastModified }
        if let expected { sidecar["expectedLength"] = expected }
        try JSONSerialization.data(withJSONObject: sidecar).write(to: request.file.sidecar)
    }
}

/// Collects a manager's events in the background.
final class EventLog: Sendable {
    private let collected = Mutex<[DownloadEvent]>([])

    init(_ stream: AsyncStream<DownloadEvent>) {
        Task { [weak self] in
            for await event in stream { self?.collected.withLock { $0.append(event) } }
        }
    }

    var all: [DownloadEvent] { collected.withLock { $0 } }
}

func fileData(_ url: URL) -> Data? { try? Data(contentsOf: url) }

/// Waits until `manager`'s downloads `ids` (all when nil) are idle, for at most
/// `limit`; when they are not, records an issue naming their states (and the last
/// events) instead of hanging the run.
func settleDownloads(
    _ manager: DownloadManager,
    _ ids: [DownloadID]? = nil,
    within limit: Duration = .seconds(60),
    events: EventLog? = nil
) async {
    let settled = await within(limit) {
        await manager.waitUntilIdle(ids)
        return !Task.isCancelled
    }
    guard settled != true else { return }
    let states = await manager.all().filter { ids?.contains($0.request.id) ?? true }.map {
        "\($0.request.id): \($0.state)"
    }
    Issue.record("not idle within \(limit): \(states); last events: \(events?.all.suffix(12) ?? [])")
}

/// How something watched from another task ended: nil while it runs.
final class Outcome: Sendable {
    private let state = Mutex<Bool?>(nil)

    func end(failed: Bool) { state.withLock { $0 = failed } }

    var failed: Bool? { state.withLock { $0 } }
}

@Suite("Download engine")
struct DownloadEngineTests {
    @Test(arguments: Engine.allCases)
    func plainDownloadIsExact(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("plain", size: 3_000_017)
            #expect(await h.download(request) == .completed(bytes: 3_000_017))
            #expect(fileData(request.file.final) == h.expectedBytes("plain", size: 3_000_017))
            #expect(!FileManager.default.fileExists(atPath: request.file.part.path))
            #expect(!FileManager.default.fileExists(atPath: request.file.sidecar.path))
        }
    }

    /// A foreground fetch with the validators of a cached copy: the server's 304
    /// keeps the file as it was, and a new version replaces it.
    @Test(arguments: Engine.allCases)
    func conditionalFetchKeepsAnUnchangedFile(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let first = h.imageRequest("/images/photo.png", name: "photo.png")
            let fetched = try await h.manager.fetch(first) { _ in }
            #expect(!fetched.notModified && fetched.bytes == 85_697 && fetched.contentType == "image/png")
            let validators = fetched.validators
            #expect(validators.etag != nil && validators.lastModified != nil)

            var again = first
            again.cached = validators
            let unchanged = try await h.manager.fetch(again) { _ in }
            #expect(unchanged.notModified && unchanged.bytes == 85_697)

            again = h.imageRequest("/fault/etag=2/images/photo.png", name: "photo.png", cached: validators)
            let changed = try await h.manager.fetch(again) { _ in }
            #expect(!changed.notModified && changed.validators.etag != validators.etag)
        }
    }

    @Test(arguments: Engine.allCases)
    func requiredTypeRefusesOtherBodies(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.imageRequest("/images/not-an-image.png", name: "x.png")
            await #expect(throws: DownloadError.self) { try await h.manager.fetch(request) { _ in } }
            #expect(!FileManager.default.fileExists(atPath: request.file.final.path))
        }
    }

    @Test(arguments: Engine.allCases)
    func droppedConnectionResumesWithRange(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("drop", size: 2_000_000, fault: "drop=700000,times=1")
            #expect(await h.download(request) == .completed(bytes: 2_000_000))
            #expect(fileData(request.file.final) == h.expectedBytes("drop", size: 2_000_000))
            // One request resumed past zero (URLSession's windows also start at 0).
            let resumed = h.server.requests.compactMap { rangeStart($0.range) }.filter { $0 > 0 }
            #expect(resumed.count == 1)
            #expect(h.events.all.contains { if case .retrying = $0 { true } else { false } })
        }
    }

    @Test(arguments: Engine.allCases)
    func shortBodyIsRetried(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("short", size: 500_000, fault: "short=1000,times=1")
            #expect(await h.download(request) == .completed(bytes: 500_000))
            #expect(fileData(request.file.final) == h.expectedBytes("short", size: 500_000))
        }
    }

    @Test(arguments: Engine.allCases)
    func serverIgnoringRangeStartsOver(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("norange", size: 400_000, fault: "norange")
            let head = h.expectedBytes("norange", size: 400_000).prefix(100_000)
            try h.leavePartial(request, bytes: Data(head), etag: nil, expected: 400_000)
            #expect(await h.download(request) == .completed(bytes: 400_000))
            #expect(fileData(request.file.final) == h.expectedBytes("norange", size: 400_000))
            #expect(h.events.all.contains { if case .restarted = $0 { true } else { false } })
        }
    }

    @Test(arguments: Engine.allCases)
    func changedETagStartsOverWithTheNewBytes(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("etag", size: 300_000, fault: "etag=1")
            let old = h.expectedBytes("etag", size: 300_000, version: 0).prefix(120_000)
            try h.leavePartial(request, bytes: Data(old), etag: "\"stale\"", expected: 300_000)
            #expect(await h.download(request) == .completed(bytes: 300_000))
            #expect(fileData(request.file.final) == h.expectedBytes("etag", size: 300_000, version: 1))
            #expect(h.server.requests.first?.ifRange == "\"stale\"")
        }
    }

    @Test(arguments: Engine.allCases)
    func resumeAppendsToAPartialFile(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("resume", size: 300_000)
            let probe = try await fetchHead(request.url)
            let bytes = h.expectedBytes("resume", size: 300_000)
            // The sidecar confirms 100 000 bytes; the .part holds more (unconfirmed).
            try h.leavePartial(request, bytes: bytes.prefix(100_000), etag: probe, expected: 300_000)
            let handle = try FileHandle(forWritingTo: request.file.part)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 0xFF, count: 5000))
            try handle.close()
            #expect(await h.download(request) == .completed(bytes: 300_000))
            #expect(fileData(request.file.final) == bytes)
            // requests[0] is the probe for the ETag; the download follows, from the
            // overlap before the confirmed bytes.
            let download = h.server.requests.dropFirst().first
            #expect(rangeStart(download?.range) == 100_000 - 65_536)
            #expect(download?.ifRange == probe)
            #expect(h.server.requests.count == 2)
        }
    }

    @Test(arguments: Engine.allCases)
    func serviceUnavailableIsRetriedAfterRetryAfter(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("busy", size: 50_000, fault: "status=503,retry-after=1,times=2")
            #expect(await h.download(request) == .completed(bytes: 50_000))
            let retries = h.events.all.compactMap { event -> Duration? in
                if case .retrying(_, _, let delay, _) = event { return delay }
                return nil
            }
            #expect(retries == [.seconds(1), .seconds(1)])
        }
    }

    @Test(arguments: Engine.allCases)
    func notFoundFailsAtOnce(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("missing", size: 10, fault: "status=404")
            guard let error = await h.failure(request) else { return }
            #expect(error.status == 404)
            #expect(error.description == "HTTP 404 Not Found from \(request.url.absoluteString)")
            #expect(h.server.requests.count == 1)
            #expect(!FileManager.default.fileExists(atPath: request.file.final.path))
        }
    }

    @Test(arguments: Engine.allCases)
    func htmlIsAnErrorNotAFile(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("portal", size: 10, fault: "html")
            guard let error = await h.failure(request) else { return }
            #expect(error.code == .notMedia)
            #expect(!FileManager.default.fileExists(atPath: request.file.final.path))
            #expect(!FileManager.default.fileExists(atPath: request.file.part.path))
        }
    }

    @Test(arguments: Engine.allCases)
    func aCompletePartIsCompletedByItsOverlap(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("whole", size: 80_000)
            let probe = try await fetchHead(request.url)
            let bytes = h.expectedBytes("whole", size: 80_000)
            try h.leavePartial(request, bytes: bytes, etag: probe, expected: 80_000)
            #expect(await h.download(request) == .completed(bytes: 80_000))
            #expect(fileData(request.file.final) == bytes)
            // requests[0] is the probe; the resume asks for the overlap, which is
            // all there is left: it matches, and the file is complete.
            #expect(h.server.requests.count == 2)
            #expect(rangeStart(h.server.requests.last?.range) == 80_000 - 65_536)
        }
    }

    @Test(arguments: Engine.allCases)
    func gaveUpAfterFiveTries(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("down", size: 10, fault: "status=500")
            guard let error = await h.failure(request) else { return }
            #expect(error.description == "gave up after 5 attempts: HTTP 500 Internal Server Error")
            #expect(h.server.requests.count == 5)
        }
    }

    @Test(arguments: Engine.allCases)
    func rapidPauseResumeKeepsBytesExact(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("toggle", size: 1_500_000, fault: "rate=3000000")
            await h.manager.start(request)
            for _ in 0..<50 {
                _ = await h.manager.pause(request.id)
                await h.manager.start(request)
                try await Task.sleep(for: .milliseconds(5))
            }
            await h.settle([request.id], within: .seconds(20))
            #expect(await h.manager.state(of: request.id) == .completed(bytes: 1_500_000))
            #expect(fileData(request.file.final) == h.expectedBytes("toggle", size: 1_500_000))
        }
    }

    /// A request cancelled at any moment of its start (a pause the moment a
    /// download starts) ends at once. FoundationNetworking calls back nothing for a
    /// task cancelled at some of those moments: waiting for it hung one run in ten
    /// of the test above.
    @Test(arguments: Engine.allCases)
    func aSendCancelledAsItStartsEndsAtOnce(engine: Engine) async throws {
        let server = try await FixtureServer.start()
        let transport = engine.makeTransport()
        let url = server.url("/fault/rate=100000/media/t/early.mp3?size=1000000")
        for attempt in 0..<200 {
            let sending = Task { try await transport.send(TransportRequest(url: url, headers: [])) }
            if attempt % 4 != 0 { try await Task.sleep(for: .microseconds(attempt * 10)) }
            sending.cancel()
            // Watched from outside: a send that never ends must fail the test, not hang it.
            let outcome = Outcome()
            Task { outcome.end(failed: (try? await sending.value) == nil) }
            let deadline = ContinuousClock.now + .seconds(30)
            while outcome.failed == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            guard outcome.failed != nil else {
                Issue.record("a send cancelled after \(attempt * 10) µs did not end within 30 s")
                break
            }
        }
        await transport.shutdown()
        await server.stop()
    }

    @Test(arguments: Engine.allCases)
    func pauseKeepsThePartAndCancelRemovesIt(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("slow", size: 2_000_000, fault: "rate=1000000")
            await h.manager.start(request)
            try await h.waitForBytes(request.id, atLeast: 300_000)
            guard case .paused(let bytes, let total) = await h.manager.pause(request.id) else {
                Issue.record("expected paused")
                return
            }
            #expect(bytes > 0 && bytes < 2_000_000)
            #expect(total == 2_000_000)
            #expect(FileManager.default.fileExists(atPath: request.file.part.path))
            #expect(FileManager.default.fileExists(atPath: request.file.sidecar.path))
            #expect(await h.manager.cancel(request.id))
            #expect(await h.manager.state(of: request.id) == .cancelled)
            #expect(!FileManager.default.fileExists(atPath: request.file.part.path))
            #expect(!FileManager.default.fileExists(atPath: request.file.sidecar.path))
        }
    }

    @Test(arguments: Engine.allCases)
    func diskErrorsFailWithTheFileAndReason(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            // A regular file where the download folder's parent should be.
            let blocker = h.layout.root
            try FileManager.default.createDirectory(
                at: blocker.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data("x".utf8).write(to: blocker)
            let request = h.request("blocked", size: 1000)
            guard let error = await h.failure(request) else { return }
            #expect(error.code == .disk)
            #expect(error.description == "cannot create directory \(blocker.path): Not a directory")
            try FileManager.default.removeItem(at: blocker)
        }
    }

    @Test(arguments: Engine.allCases)
    func concurrencyIsLimitedAndTheRestQueued(engine: Engine) async throws {
        try await EngineHarness.run(engine, maxConcurrent: 2) { h in
            let requests = (0..<5).map { h.request("c\($0)", size: 300_000, fault: "rate=1500000") }
            for request in requests { await h.manager.start(request) }
            var most = 0
            while await h.manager.all().contains(where: { $0.state.isActive }) {
                let running = await h.manager.all().filter { if case .running = $0.state { true } else { false } }.count
                most = max(most, running)
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(most == 2)
            for request in requests {
                #expect(await h.manager.state(of: request.id) == .completed(bytes: 300_000))
            }
        }
    }
}

/// N in `bytes=N-` or `bytes=N-M`.
func rangeStart(_ header: String?) -> Int? {
    guard let header, header.hasPrefix("bytes=") else { return nil }
    return Int(header.dropFirst(6).prefix { $0 != "-" })
}

@Suite("URLSession windows")
struct URLSessionWindowTests {
    @Test func largeBodiesComeInRangeWindows() async throws {
        try await EngineHarness.run(.urlsession) { h in
            let size = 20_000_000
            let request = h.request("windows", size: size)
            #expect(await h.download(request) == .completed(bytes: Int64(size)))
            #expect(fileData(request.file.final) == h.expectedBytes("windows", size: size))
            let window = 8 << 20
            #expect(
                h.server.requests.map(\.range) == [
                    "bytes=0-\(window - 1)", "bytes=\(window)-\(2 * window - 1)",
                    "bytes=\(2 * window)-\(3 * window - 1)",
                ]
            )
            #expect(h.server.requests.dropFirst().allSatisfy { $0.ifRange != nil })
        }
    }

    @Test func aFileThatChangesBetweenWindowsStartsOver() async throws {
        try await EngineHarness.run(.urlsession) { h in
            // The first request sees version 1, later ones version 0.
            let size = 10_000_000
            let request = h.request("changing", size: size, fault: "etag=1,times=1")
            #expect(await h.download(request) == .completed(bytes: Int64(size)))
            #expect(fileData(request.file.final) == h.expectedBytes("changing", size: size, version: 0))
            #expect(h.events.all.contains { if case .restarted = $0 { true } else { false } })
        }
    }
}

/// The ETag the server gives `url`, read with a plain GET.
func fetchHead(_ url: URL) async throws -> String? {
    let transport = AsyncHTTPClientTransport()
    defer { Task { await transport.shutdown() } }
    let response = try await transport.send(TransportRequest(url: url, headers: []))
    for try await _ in response.body {}
    return response.header("etag")
}
