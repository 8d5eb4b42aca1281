import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What to download and where.
public struct DownloadRequest: Sendable, Equatable {
    /// The key the manager knows it by (an episode ID, for example).
    public let id: String
    public let url: URL
    public let file: DownloadLayout.File
    /// Validators of the complete file already at `file.final`: the first request
    /// sends them as `If-None-Match` and `If-Modified-Since`, and a 304 keeps that file.
    public var cached: Validators?
    /// The media type the body must have, such as `image/`: any other type fails the
    /// download and leaves nothing. Nil accepts anything but a web page.
    public var requiredType: String?

    public init(
        id: String,
        url: URL,
        file: DownloadLayout.File,
        cached: Validators? = nil,
        requiredType: String? = nil
    ) {
        self.id = id
        self.url = url
        self.file = file
        self.cached = cached
        self.requiredType = requiredType
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

/// One download from start (or from the bytes on disk) to a verified final file.
///
/// The rules: bytes go to `.part`, metadata to `.part.json`; a resume sends `Range`
/// and `If-Range`; a 206 that starts where asked appends; a 200 starts over; a 416
/// on a `.part` that already holds the promised length completes it. The final name
/// appears only by rename after the length is checked and the data synced.
struct DownloadJob: Sendable {
    /// Received bytes are made durable and recorded in the sidecar after this many
    /// bytes or this much time, whichever comes first: a killed process loses at
    /// most that much.
    static let confirmInterval: Int64 = 32 << 20
    static let confirmPeriod: Duration = .seconds(1)
    static let progressInterval: Duration = .milliseconds(100)

    let request: DownloadRequest
    let transport: any DownloadTransport
    let policy: RetryPolicy
    let emit: @Sendable (DownloadEvent) -> Void

    private var id: String { request.id }
    private var file: DownloadLayout.File { request.file }

    /// Downloads, retrying what can be retried. Throws `DownloadError`, or
    /// `CancellationError` after leaving `.part` and sidecar consistent for a later
    /// resume.
    func run() async throws -> DownloadOutcome {
        try makeDirectories(file.final.deletingLastPathComponent().path)

        var sidecar = Sidecar.load(from: file.sidecar).flatMap { $0.url == request.url.absoluteString ? $0 : nil }
        let partSize = fileSize(file.part.path)
        var offset = min(sidecar?.confirmedBytes ?? 0, partSize)
        if sidecar == nil { offset = 0 }
        var failures = 0
        var lastProblem = ""

        while true {
            try Task.checkCancellation()
            var headers: [(name: String, value: String)] = []
            if offset > 0, let sidecar {
                headers.append(("Range", "bytes=\(offset)-"))
                if let validator = sidecar.ifRangeValidator { headers.append(("If-Range", validator)) }
            } else if let cached = request.cached, fileExists(file.final.path) {
                if let etag = cached.etag { headers.append(("If-None-Match", etag)) }
                if let date = cached.lastModified { headers.append(("If-Modified-Since", date)) }
            }

            let response: TransportResponse
            do {
                response = try await transport.send(TransportRequest(url: request.url, headers: headers))
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                lastProblem = describeTransportError(error)
                failures += 1
                try await backOff(failures: failures, retryAfter: nil, problem: lastProblem)
                continue
            }

            var expected: Int64?
            switch response.status {
            case 206:
                guard let range = ContentRange(response.header("content-range")), range.start == offset else {
                    emit(.restarted(id: id, reason: "the server resumed at another byte; starting over"))
                    offset = 0
                    sidecar = nil
                    continue
                }
                expected = range.total ?? response.header("content-length").flatMap(Int64.init).map { $0 + offset }
            case 200:
                if offset > 0 {
                    emit(.restarted(id: id, reason: "the file changed or the server ignores ranges; starting over"))
                }
                offset = 0
                expected = response.header("content-length").flatMap(Int64.init)
            case 304 where request.cached != nil && offset == 0:
                return DownloadOutcome(
                    bytes: fileSize(file.final.path),
                    contentType: nil,
                    validators: Validators(
                        etag: response.header("etag") ?? request.cached?.etag,
                        lastModified: response.header("last-modified") ?? request.cached?.lastModified
                    ),
                    notModified: true
                )
            case 416:
                if let sidecar, let length = sidecar.expectedLength, offset == length {
                    return try finish(length: length, record: sidecar)
                }
                emit(.restarted(id: id, reason: "the server refused the range; starting over"))
                offset = 0
                sidecar = nil
                continue
            case 408, 429, 500...599:
                lastProblem = "HTTP \(response.status)"
                failures += 1
                try await backOff(
                    failures: failures,
                    retryAfter: RetryPolicy.parseRetryAfter(response.header("retry-after")),
                    problem: lastProblem
                )
                continue
            default:
                throw DownloadError.httpStatus(response.status, url: request.url)
            }

            let contentType = response.header("content-type")
            if let required = request.requiredType {
                guard let contentType, contentType.lowercased().hasPrefix(required) else {
                    throw DownloadError.wrongType(
                        contentType ?? "no content type",
                        expected: required,
                        url: request.url
                    )
                }
            } else if let contentType, contentType.lowercased().contains("text/html") {
                throw DownloadError.notMedia(contentType: contentType, url: request.url)
            }

            var record = Sidecar(
                url: request.url.absoluteString,
                etag: response.header("etag"),
                lastModified: response.header("last-modified"),
                expectedLength: expected,
                confirmedBytes: offset,
                contentType: contentType
            )
            try record.save(to: file.sidecar)
            sidecar = record
            emit(.started(id: id, offset: offset))

            var part = try PartFile(path: file.part.path, truncatingTo: offset)
            let attemptStart = offset
            do {
                try await receive(response.body, into: &part, expected: expected, sidecar: &record)
            } catch let error as DownloadError {
                throw error
            } catch {
                // Keep what arrived: sync it and record it, then stop or retry.
                try confirm(part, in: &record)
                offset = part.length
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                if offset > attemptStart { failures = 0 }
                lastProblem = describeTransportError(error)
                failures += 1
                try await backOff(failures: failures, retryAfter: nil, problem: lastProblem)
                continue
            }

            if let expected, part.length < expected {
                try confirm(part, in: &record)
                if part.length > offset { failures = 0 }
                offset = part.length
                lastProblem = "the body ended after \(part.length) of \(expected) bytes"
                failures += 1
                try await backOff(failures: failures, retryAfter: nil, problem: lastProblem)
                continue
            }
            if let expected, part.length > expected {
                throw DownloadError.lengthMismatch(expected: expected, received: part.length)
            }
            try part.sync()
            return try finish(length: part.length, record: record)
        }

        func backOff(failures: Int, retryAfter: Duration?, problem: String) async throws {
            guard failures < policy.attempts else {
                throw DownloadError.gaveUp(attempts: failures, lastProblem: problem)
            }
            let delay = policy.delay(afterAttempt: failures, retryAfter: retryAfter)
            emit(.retrying(id: id, attempt: failures + 1, delay: delay, reason: problem))
            try await Task.sleep(for: delay)
        }
    }

    /// Streams the body into the part file, confirming every `confirmInterval` bytes
    /// and reporting progress about ten times a second.
    private func receive(
        _ body: any AsyncSequence<ByteBuffer, any Error> & Sendable,
        into part: inout PartFile,
        expected: Int64?,
        sidecar: inout Sidecar
    ) async throws {
        var meter = RateMeter(start: part.length)
        let clock = ContinuousClock()
        var nextReport = clock.now
        var nextConfirm = part.length + Self.confirmInterval
        var confirmDue = clock.now + Self.confirmPeriod
        for try await chunk in body {
            try part.append(chunk)
            let now = clock.now
            if part.length >= nextConfirm || now >= confirmDue {
                try confirm(part, in: &sidecar)
                nextConfirm = part.length + Self.confirmInterval
                confirmDue = now + Self.confirmPeriod
            }
            if now >= nextReport {
                meter.record(bytes: part.length, at: now)
                emit(
                    .progress(id: id, DownloadProgress(bytes: part.length, total: expected, bytesPerSecond: meter.rate))
                )
                nextReport = now + Self.progressInterval
            }
            if Task.isCancelled { throw CancellationError() }
        }
        meter.record(bytes: part.length, at: clock.now)
        emit(.progress(id: id, DownloadProgress(bytes: part.length, total: expected, bytesPerSecond: meter.rate)))
    }

    /// Makes the bytes in `part` durable and records their count in the sidecar, so
    /// that a later run trusts exactly them.
    private func confirm(_ part: borrowing PartFile, in record: inout Sidecar) throws(DownloadError) {
        try part.sync()
        record.confirmedBytes = part.length
        try record.save(to: file.sidecar)
    }

    /// Renames the synced `.part` to the final name and removes the sidecar, whose
    /// last state (`record`) gives the outcome's type and validators.
    private func finish(length: Int64, record: Sidecar) throws -> DownloadOutcome {
        let actual = fileSize(file.part.path)
        guard actual == length else {
            throw DownloadError.lengthMismatch(expected: length, received: actual)
        }
        guard rename(file.part.path, file.final.path) == 0 else {
            throw DownloadError.disk("rename", path: file.part.path, errno: errno)
        }
        syncDirectory(file.final.deletingLastPathComponent().path)
        unlink(file.sidecar.path)
        return DownloadOutcome(
            bytes: length,
            contentType: record.contentType,
            validators: Validators(etag: record.etag, lastModified: record.lastModified),
            notModified: false
        )
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Equatable {
    let start: Int64
    let end: Int64
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-", maxSplits: 1) ?? []
        guard parts.count == 2, bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]),
            end >= start
        else { return nil }
        self.start = start
        self.end = end
        self.total = Int64(parts[1])
    }
}

/// Bytes a second over roughly the last two seconds.
struct RateMeter {
    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []

    init(start: Int64) {
        samples = [(ContinuousClock.now, start)]
    }

    mutating func record(bytes: Int64, at time: ContinuousClock.Instant) {
        samples.append((time, bytes))
        while samples.count > 2, time - samples[1].time > .seconds(2) {
            samples.removeFirst()
        }
    }

    var rate: Double {
        guard let first = samples.first, let last = samples.last else { return 0 }
        let seconds = Double((last.time - first.time).nanoseconds) / 1e9
        return seconds > 0 ? Double(last.bytes - first.bytes) / seconds : 0
    }
}

func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
}

/// `mkdir -p`, failing with the errno of the component that could not be made.
func makeDirectories(_ path: String) throws(DownloadError) {
    var info = stat()
    if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty, parent != path { try makeDirectories(parent) }
    if mkdir(path, 0o755) != 0, errno != EEXIST {
        throw .disk("create directory", path: path, errno: errno)
    }
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
        throw .disk("create directory", path: path, errno: ENOTDIR)
    }
}

/// A short reason for a failed transfer, for retry messages.
func describeTransportError(_ error: any Error) -> String {
    if let error = error as? HTTPClientError {
        if error == .remoteConnectionClosed { return "the connection dropped" }
        if error == .readTimeout { return "the server stopped sending" }
        if error == .connectTimeout { return "the connection timed out" }
    }
    if let error = error as? URLError {
        switch error.code {
        case .networkConnectionLost: return "the connection dropped"
        case .timedOut: return "the server stopped sending"
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost: return "unknown host"
        default: break
        }
    }
    if let error = error as? IOError {
        return String(cString: strerror(error.errnoCode))
    }
    if let error = error as? NIOConnectionError, let first = error.connectionErrors.first?.error {
        return describeTransportError(first)
    }
    return String(describing: error)
}
