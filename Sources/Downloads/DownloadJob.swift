import Foundation
import HTTPSupport
import NIOCore
import NIOPosix
import Synchronization
import SystemPackage

/// What to download and where.
public struct DownloadRequest: Sendable, Equatable {
    /// The key the manager knows it by (an episode's, for example).
    public let id: DownloadID
    public let url: URL
    public let file: DownloadLayout.File
    /// Validators of the complete file already at `file.final`: the first request
    /// sends them as `If-None-Match` and `If-Modified-Since`, and a 304 keeps that file.
    public var cached: Validators?
    /// The media type the body must have, such as `image/`: any other type fails the
    /// download and leaves nothing. Nil accepts anything but a web page.
    public var requiredType: String?
    /// The length the feed declares (an enclosure's `length`): it caps the size
    /// (four times it) and judges a body whose server cannot say where it ends.
    public var declaredLength: Int64?
    /// An `Authorization` header for a private feed's enclosure, sent only while
    /// the request stays on `url`'s origin: both transports drop it on a redirect
    /// to another (AsyncHTTPClient by itself, URLSession in its delegate).
    public var authorization: String?

    public init(
        id: DownloadID,
        url: URL,
        file: DownloadLayout.File,
        cached: Validators? = nil,
        requiredType: String? = nil,
        declaredLength: Int64? = nil,
        authorization: String? = nil
    ) {
        self.id = id
        self.url = url
        self.file = file
        self.cached = cached
        self.requiredType = requiredType
        self.declaredLength = declaredLength
        self.authorization = authorization
    }
}

/// What a server said identifies one version of a file.
public struct Validators: Sendable, Equatable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// How a download ended well.
public struct DownloadOutcome: Sendable, Equatable {
    /// The size of the final file.
    public let bytes: Int64
    /// The response's `Content-Type`, when it had one.
    public let contentType: String?
    /// The validators to send next time.
    public let validators: Validators
    /// The server answered 304: the cached file was kept as it was.
    public let notModified: Bool
}

/// One download from start (or from the bytes on disk) to a verified final file:
/// the I/O under ``DownloadPlanner``, which makes every decision.
///
/// Bytes go to `.part` (opened once, locked, never through a link), metadata to
/// `.part.json`. The final name appears only by rename after the length is checked
/// and the data synced.
struct DownloadJob: Sendable {
    /// Received bytes are made durable and recorded in the sidecar after this many
    /// bytes or this much time, whichever comes first: a killed process loses at
    /// most that much.
    static let confirmInterval: Int64 = 32 << 20
    static let confirmPeriod: Duration = .seconds(1)
    static let progressInterval: Duration = .milliseconds(100)
    /// How much of a body may be read ahead of the disk (see ``ReadAhead``).
    static let readAheadLimit = 1 << 20

    let request: DownloadRequest
    let transport: any DownloadTransport
    let policy: RetryPolicy
    /// The largest file this job writes (a declared length may lower it).
    var maxFileSize: Int64 = DownloadPlanner.defaultMaxFileSize
    /// The cap shared by every download of the engine, when there is one.
    var limiter: RateLimiter? = nil
    let emit: @Sendable (DownloadEvent) -> Void

    private var id: DownloadID { request.id }
    private var file: DownloadLayout.File { request.file }

    /// Downloads, retrying what can be retried. Throws `DownloadError`, or
    /// `CancellationError` after leaving `.part` and sidecar consistent for a later
    /// resume.
    func run() async throws -> DownloadOutcome {
        guard NetworkFailure.isFetchable(request.url) else {
            throw DownloadError.network(
                NetworkFailure(.unsupportedScheme(request.url.scheme ?? "none"), url: request.url)
            )
        }
        let folder = file.final.deletingLastPathComponent().path
        try makeDirectories(folder)
        // The podcast's folder itself must be a folder: a link planted there would
        // send the download somewhere else (like a link at `.part`).
        guard !isSymbolicLink(folder) else { throw DownloadError.unsafePath(folder) }
        var part = try PartFile(path: file.part.path)
        // A `.part` that never received a byte is nothing to resume (after a 304 or
        // a failure at the first response); a renamed one is left alone.
        defer { part.removeIfEmpty(sidecar: file.sidecar.path) }
        return try await transfer(&part)
    }

    private func transfer(_ part: inout PartFile) async throws -> DownloadOutcome {
        var planner = DownloadPlanner(
            request: request,
            saved: Sidecar.load(from: file.sidecar),
            partLength: part.length,
            finalExists: isRegularFile(file.final.path),
            policy: policy,
            maxFileSize: maxFileSize
        )
        while true {
            try Task.checkCancellation()
            var headers = planner.nextRequest().headers.map { (name: $0.name, value: $0.value) }
            if let authorization = request.authorization {
                headers.append((name: "Authorization", value: authorization))
            }
            var action: DownloadPlanner.Action
            do {
                let response = try await transport.send(TransportRequest(url: request.url, headers: headers))
                action = planner.received(status: response.status, headers: response.headers, finalURL: response.url)
                if case .receive(let reception) = action {
                    action = try await take(response.body, reception, into: &part, planner: &planner)
                }
            } catch let error as DownloadError {
                throw error
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                action = planner.failed(NetworkFailure(error, url: request.url))
            }
            switch action {
            case .receive:
                preconditionFailure("take(_:_:into:planner:) decides what a body meant")
            case .finish(let length):
                return try finish(&part, length: length, record: planner.saved)
            case .notModified(let validators):
                return DownloadOutcome(
                    bytes: fileSize(file.final.path),
                    contentType: nil,
                    validators: validators,
                    notModified: true
                )
            case .retry(let retry):
                if retry.discard, case .restarted(let reason) = retry.reason {
                    try part.truncate(to: 0)
                    unlink(file.sidecar.path)
                    emit(.restarted(id: id, reason: reason))
                }
                let delay = policy.delay(afterAttempt: retry.attempt - 1, retryAfter: retry.retryAfter)
                emit(.retrying(id: id, attempt: retry.attempt, delay: delay, reason: retry.reason))
                try await Task.sleep(for: delay)
            case .verify:
                continue
            case .fail(let error):
                throw error
            case .abandon(let error):
                try part.truncate(to: 0)
                unlink(file.sidecar.path)
                throw error
            }
        }
    }

    /// Writes a response body as `reception` says: checks the overlap, appends,
    /// confirms, reports progress and watches the speed. Returns what the planner
    /// makes of the way the body ended; what arrived is confirmed before a retry.
    private func take(
        _ body: any AsyncSequence<ByteBuffer, any Error> & Sendable,
        _ reception: DownloadPlanner.Reception,
        into part: inout PartFile,
        planner: inout DownloadPlanner
    ) async throws -> DownloadPlanner.Action {
        if let reason = reception.restarted { emit(.restarted(id: id, reason: reason)) }
        var record = reception.record
        try record.save(to: file.sidecar)
        try part.truncate(to: reception.offset)
        emit(.started(id: id, offset: reception.offset))

        var verifyAt = reception.offset - reception.verify
        let expected = reception.expected
        let clock = ContinuousClock()
        var meter = RateMeter(start: part.length)
        var speed = LowSpeedDetector(
            limit: policy.lowSpeedLimit,
            window: policy.lowSpeedTime,
            bytes: part.length,
            at: clock.now
        )
        var nextReport = clock.now
        var nextConfirm = part.length + Self.confirmInterval
        var confirmDue = clock.now + Self.confirmPeriod
        var interruption: DownloadPlanner.Interruption?
        // The periodic confirm runs beside the transfer; every way out of the loop
        // waits for it, so no sidecar is written after this returns.
        var confirming: BackgroundConfirm?
        var mismatched = false
        do {
            // The cap applies before the read-ahead, so that it slows the network.
            var source = body
            if let limiter { source = limiter.limit(body) }
            reading: for try await batch in ReadAhead(source, limit: Self.readAheadLimit) {
                for var chunk in batch {
                    if verifyAt < reception.offset {
                        let count = min(chunk.readableBytes, Int(reception.offset - verifyAt))
                        let onDisk = try part.read(at: verifyAt, count: count)
                        guard chunk.readBytes(length: count) == onDisk else {
                            mismatched = true
                            break reading
                        }
                        verifyAt += Int64(count)
                        if chunk.readableBytes == 0 { continue }
                    }
                    try part.append(chunk)
                }
                if part.length > reception.limit { break }
                let now = clock.now
                if part.length >= nextConfirm || now >= confirmDue, confirming?.isFinished ?? true {
                    try await confirming?.wait()
                    record.confirmedBytes = part.length
                    confirming = BackgroundConfirm(part, record: record, to: file.sidecar)
                    nextConfirm = part.length + Self.confirmInterval
                    confirmDue = now + Self.confirmPeriod
                }
                if now >= nextReport {
                    meter.record(bytes: part.length, at: now)
                    emit(
                        .progress(
                            id: id,
                            DownloadProgress(bytes: part.length, total: expected, bytesPerSecond: meter.rate)
                        )
                    )
                    nextReport = now + Self.progressInterval
                }
                if Task.isCancelled { throw CancellationError() }
                if speed.isStalled(bytes: part.length, at: now) {
                    interruption = .tooSlow(bytesPerSecond: Int(policy.lowSpeedLimit))
                    break
                }
            }
        } catch let error as DownloadError {
            try? await confirming?.wait()
            throw error
        } catch {
            // Keep what arrived: sync it and record it, then stop or retry.
            try await confirming?.wait()
            try confirm(part, in: &record)
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            interruption = .network(NetworkFailure(error, url: request.url))
        }
        try await confirming?.wait()
        if mismatched { return planner.overlapMismatched() }
        meter.record(bytes: part.length, at: clock.now)
        emit(.progress(id: id, DownloadProgress(bytes: part.length, total: expected, bytesPerSecond: meter.rate)))
        let action = planner.bodyEnded(partLength: part.length, expected: expected, interruption: interruption)
        if case .retry = action { try confirm(part, in: &record) }
        return action
    }

    /// Makes the bytes in `part` durable and records their count in the sidecar, so
    /// that a later run trusts exactly them. Blocks; ``BackgroundConfirm`` is the
    /// same off the write path.
    private func confirm(_ part: borrowing PartFile, in record: inout Sidecar) throws(DownloadError) {
        try part.sync()
        record.confirmedBytes = part.length
        try record.save(to: file.sidecar)
    }

    /// Syncs the `.part`, renames it to the final name and removes the sidecar, whose
    /// last state (`record`) gives the outcome's type and validators.
    private func finish(_ part: inout PartFile, length: Int64, record: Sidecar?) throws -> DownloadOutcome {
        guard part.length == length else {
            throw DownloadError.lengthMismatch(expected: length, received: part.length)
        }
        try part.sync()
        guard rename(file.part.path, file.final.path) == 0 else {
            throw DownloadError.disk("rename", path: file.part.path, errno: errno)
        }
        syncDirectory(file.final.deletingLastPathComponent().path)
        unlink(file.sidecar.path)
        return DownloadOutcome(
            bytes: length,
            contentType: record?.contentType,
            validators: Validators(etag: record?.etag, lastModified: record?.lastModified),
            notModified: false
        )
    }
}

/// A confirm that runs beside the transfer: `fdatasync` of the `.part`, then the
/// sidecar saying how many bytes that made durable. The job keeps writing meanwhile
/// and starts no second one before this one has finished; it waits for it before
/// it leaves the body, and the `.part` stays open until then.
final class BackgroundConfirm: Sendable {
    private let task: Task<Void, any Error>
    private let done: DoneFlag

    private final class DoneFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Starts syncing `part` and then saving `record` (whose `confirmedBytes` is the
    /// `.part`'s length now) to `sidecar`.
    init(_ part: borrowing PartFile, record: Sidecar, to sidecar: URL) {
        let (fd, path, done) = (part.descriptor, part.path, DoneFlag())
        self.done = done
        // The syscalls block: they run on NIO's pool of threads for blocking work,
        // never on a thread of Swift's cooperative pool; the task only waits. (An
        // unstructured task: cancelling the job does not cancel a confirm begun.)
        task = Task {
            defer { done.value.store(true, ordering: .releasing) }
            try await NIOThreadPool.singleton.runIfActive {
                guard fdatasync(fd) == 0 else { throw DownloadError.disk("sync", path: path, errno: errno) }
                try record.save(to: sidecar)
            }
        }
    }

    var isFinished: Bool { done.value.load(ordering: .acquiring) }

    /// Waits for it; throws what it failed with.
    func wait() async throws {
        try await task.value
    }
}

/// Bytes a second over roughly the last two seconds.
struct RateMeter {
    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []
    /// The shortest span a rate is measured over.
    static let minimumSpan: Duration = .seconds(1)

    init(start: Int64, at time: ContinuousClock.Instant = .now) {
        samples = [(time, start)]
    }

    mutating func record(bytes: Int64, at time: ContinuousClock.Instant) {
        samples.append((time, bytes))
        while samples.count > 2, time - samples[1].time > .seconds(2) {
            samples.removeFirst()
        }
    }

    /// Nil until ``minimumSpan`` has passed: over the first instants, what the
    /// socket had buffered would read as an absurd speed.
    var rate: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= Self.minimumSpan else {
            return nil
        }
        return Double(last.bytes - first.bytes) / (last.time - first.time).seconds
    }
}

func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// A symbolic link at `path` itself.
func isSymbolicLink(_ path: String) -> Bool {
    (try? FilePath(path).stat(followTargetSymlink: false).type) == .symbolicLink
}

/// A regular file at `path` itself (a symbolic link there does not count).
func isRegularFile(_ path: String) -> Bool {
    (try? FilePath(path).stat(followTargetSymlink: false).type) == .regular
}

func fileSize(_ path: String) -> Int64 {
    (try? FilePath(path).stat().size) ?? 0
}

/// `mkdir -p`, failing with the errno of the component that could not be made.
func makeDirectories(_ path: String) throws(DownloadError) {
    let isDirectory = { (try? FilePath(path).stat().type) == .directory }
    if isDirectory() { return }
    let parent = FilePath(path).removingLastComponent()
    if !parent.isEmpty, parent != FilePath(path) { try makeDirectories(parent.string) }
    if mkdir(path, 0o755) != 0, errno != EEXIST {
        throw .disk("create directory", path: path, errno: errno)
    }
    guard isDirectory() else {
        throw .disk("create directory", path: path, errno: ENOTDIR)
    }
}
