import Foundation
import HTTPSupport

/// The decisions of one download, apart from sockets and files: what to ask for
/// next, and what a response head or the end of a body means.
///
/// ``DownloadJob`` does the I/O and asks this planner at every step, the way
/// AsyncHTTPClient's connection code drives its `HTTPRequestStateMachine`; the
/// planner is tested exhaustively without either (`DownloadPlannerTests`).
///
/// The rules:
/// - Bytes on disk are continued with `Range` and `If-Range` (a strong ETag, else
///   Last-Modified). A 206 is appended only when it starts at the byte asked for,
///   carries the same validator and the same total; anything else starts over.
/// - Without a validator, the last ``overlap`` bytes are asked for again and must
///   equal the bytes on disk (``overlapMismatched()`` otherwise).
/// - Media is asked for with `Accept-Encoding: identity`; an encoded body fails.
/// - Every failure, restarts included, counts against the retry budget. Bytes
///   beyond the most the file ever held reset the count of failures, unless the
///   attempt was a stall (a trickle is not progress); restarts are never forgiven.
struct DownloadPlanner: Sendable {
    /// How many bytes before the offset a resume without validators asks for again.
    static let overlap: Int64 = 64 << 10

    /// A request to send.
    struct Request: Equatable {
        var headers: [Header]
    }

    struct Header: Equatable, Sendable {
        let name: String
        let value: String
        init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How to take a response's body.
    struct Reception: Equatable {
        /// Cut the `.part` to this many bytes and append the body after them.
        var offset: Int64
        /// The body's first `verify` bytes repeat the `.part`'s last `verify` bytes
        /// before `offset` and must equal them; they are not written.
        var verify: Int64
        /// The complete file's length, when known.
        var expected: Int64?
        /// The sidecar to save before writing.
        var record: Sidecar
        /// Why the bytes on disk are discarded (the body starts the file anew).
        var restarted: RestartReason?
    }

    /// A pause before the next request.
    struct Retry: Equatable {
        /// The attempt that comes next (2 for the first retry).
        var attempt: Int
        /// The server's `Retry-After`.
        var retryAfter: Duration?
        var reason: RetryReason
        /// Discard `.part` and sidecar before retrying.
        var discard: Bool
    }

    /// What to do next.
    enum Action: Equatable {
        case receive(Reception)
        /// The file is complete at this length: verify, sync and rename.
        case finish(length: Int64)
        /// 304: the cached final file stands.
        case notModified(Validators)
        case retry(Retry)
        case fail(DownloadError)
    }

    /// Why a body stopped early.
    enum Interruption: Equatable {
        case network(NetworkFailure)
        case tooSlow(bytesPerSecond: Int)
    }

    let url: URL
    let cached: Validators?
    let requiredType: String?
    let policy: RetryPolicy
    private var attempts: Int { max(1, policy.attempts) }

    /// What the sidecar on disk says of the bytes in `.part`; nil when they cannot be
    /// trusted.
    private(set) var saved: Sidecar?
    /// Confirmed bytes to continue from.
    private(set) var offset: Int64
    /// Whether the complete file is on disk (a conditional request may keep it).
    private var finalExists: Bool
    private(set) var failures = 0
    /// Times the bytes on disk were discarded: they count with `failures` and are
    /// never reset, so a server that keeps changing its mind runs out of tries.
    private var restarts = 0
    /// The most bytes the `.part` has held: growth beyond it is progress.
    private var highWater: Int64
    /// What the last request asked for: the offset of its first byte.
    private var requestedStart: Int64 = 0
    /// Whether the last request continued bytes on disk.
    private var resuming = false
    /// The validator sent in `If-Range`, and whether it was the ETag.
    private var sentValidator: (value: String, isETag: Bool)?

    init(request: DownloadRequest, saved: Sidecar?, partLength: Int64, finalExists: Bool, policy: RetryPolicy) {
        url = request.url
        cached = request.cached
        requiredType = request.requiredType
        self.policy = policy
        self.finalExists = finalExists
        let usable = saved.flatMap { $0.url == request.url.absoluteString ? $0 : nil }
        self.saved = usable
        offset = usable.map { min($0.confirmedBytes, partLength) } ?? 0
        highWater = offset
    }

    /// The next request's headers.
    mutating func nextRequest() -> Request {
        var headers = [Header("Accept-Encoding", "identity")]
        requestedStart = 0
        sentValidator = nil
        resuming = offset > 0 && saved != nil
        if offset > 0, let saved {
            if let validator = saved.ifRangeValidator {
                requestedStart = offset
                sentValidator = (validator, validator == saved.etag)
                headers.append(Header("Range", "bytes=\(offset)-"))
                headers.append(Header("If-Range", validator))
            } else {
                requestedStart = offset - min(Self.overlap, offset)
                headers.append(Header("Range", "bytes=\(requestedStart)-"))
            }
        } else if let cached, finalExists {
            if let etag = cached.etag { headers.append(Header("If-None-Match", etag)) }
            if let date = cached.lastModified { headers.append(Header("If-Modified-Since", date)) }
        }
        return Request(headers: headers)
    }

    /// What a response head means. `headers` are keyed by lower-cased name.
    mutating func received(status: Int, headers: [String: String]) -> Action {
        switch status {
        case 200, 206:
            break
        case 304 where cached != nil && finalExists && !resuming:
            return .notModified(
                Validators(
                    etag: headers["etag"] ?? cached?.etag,
                    lastModified: headers["last-modified"] ?? cached?.lastModified
                )
            )
        case 416 where resuming:
            if let saved, let length = saved.expectedLength, offset == length {
                return .finish(length: length)
            }
            return restart(.rangeRefused)
        case 408, 429, 500...599:
            return retry(.status(status), retryAfter: policy.retryAfter(headers["retry-after"]))
        default:
            return .fail(.httpStatus(status, url: url))
        }

        if let encoding = headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased(),
            !encoding.isEmpty, encoding != "identity"
        {
            return .fail(.encoded(encoding, url: url))
        }
        let contentType = headers["content-type"]
        if let requiredType {
            guard let contentType, contentType.lowercased().hasPrefix(requiredType) else {
                return .fail(.wrongType(contentType ?? "no content type", expected: requiredType, url: url))
            }
        } else if let contentType, contentType.lowercased().contains("text/html") {
            return .fail(.notMedia(contentType: contentType, url: url))
        }

        var start: Int64 = 0
        var expected = headers["content-length"].flatMap(Int64.init)
        var restarted: RestartReason?
        if status == 206 {
            guard let range = ContentRange(headers["content-range"]), range.start == requestedStart else {
                let received = ContentRange(headers["content-range"])?.start
                return restart(.wrongOffset(requested: requestedStart, received: received))
            }
            if let sent = sentValidator,
                let answered = headers[sent.isETag ? "etag" : "last-modified"], answered != sent.value
            {
                // A missing header says nothing: the server honoured If-Range.
                return restart(.validatorChanged)
            }
            let total = range.total ?? expected.map { $0 + range.start }
            if let was = saved?.expectedLength, let total, was != total {
                return restart(.lengthChanged(was: was, now: total))
            }
            start = range.start
            expected = total
        } else if resuming {
            // A 200 to a Range request carries the whole file: take it, and count
            // the discarded bytes as a failure so that a server that never resumes
            // cannot keep the download going round.
            restarts += 1
            if let end = outOfTries(.restarted(.rangeIgnored)) { return end }
            restarted = .rangeIgnored
        }
        let continuing = start > 0
        let record = Sidecar(
            url: url.absoluteString,
            etag: headers["etag"] ?? (continuing ? saved?.etag : nil),
            lastModified: headers["last-modified"] ?? (continuing ? saved?.lastModified : nil),
            expectedLength: expected,
            confirmedBytes: continuing ? offset : 0,
            contentType: contentType
        )
        if !continuing { offset = 0 }
        saved = record
        return .receive(
            Reception(
                offset: offset,
                verify: continuing ? offset - start : 0,
                expected: expected,
                record: record,
                restarted: restarted
            )
        )
    }

    /// The overlap asked for without validators differs from the bytes on disk.
    mutating func overlapMismatched() -> Action {
        restart(.overlapMismatch)
    }

    /// The request failed before a response head arrived.
    mutating func failed(_ failure: NetworkFailure) -> Action {
        guard failure.isTransient else { return .fail(.network(failure)) }
        return retry(.network(failure), retryAfter: nil)
    }

    /// The body ended (completely, or early for `interruption`) with the `.part`
    /// holding `partLength` bytes, all of them synced and recorded by the caller
    /// when it retries.
    mutating func bodyEnded(partLength: Int64, expected: Int64?, interruption: Interruption?) -> Action {
        offset = partLength
        saved?.confirmedBytes = partLength
        if partLength > highWater {
            highWater = partLength
            if case .tooSlow = interruption {} else { failures = 0 }
        }
        if let expected, partLength > expected {
            return .fail(.lengthMismatch(expected: expected, received: partLength))
        }
        switch interruption {
        case .network(let failure):
            guard failure.isTransient else { return .fail(.network(failure)) }
            return retry(.network(failure), retryAfter: nil)
        case .tooSlow(let rate):
            return retry(.tooSlow(bytesPerSecond: rate), retryAfter: nil)
        case nil:
            if let expected, partLength < expected {
                return retry(.shortBody(received: partLength, expected: expected), retryAfter: nil)
            }
            return .finish(length: partLength)
        }
    }

    private mutating func restart(_ reason: RestartReason) -> Action {
        offset = 0
        saved = nil
        restarts += 1
        return next(.restarted(reason), retryAfter: nil, discard: true)
    }

    private mutating func retry(_ reason: RetryReason, retryAfter: Duration?) -> Action {
        failures += 1
        return next(reason, retryAfter: retryAfter, discard: false)
    }

    private func next(_ reason: RetryReason, retryAfter: Duration?, discard: Bool) -> Action {
        if let end = outOfTries(reason) { return end }
        return .retry(Retry(attempt: failures + restarts + 1, retryAfter: retryAfter, reason: reason, discard: discard))
    }

    /// The failure that ends the download once the tries are used up (`last` says
    /// why the last one failed); nil while tries are left.
    private func outOfTries(_ last: RetryReason) -> Action? {
        let tries = failures + restarts
        return tries < attempts ? nil : .fail(.gaveUp(attempts: tries, last: last))
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
        let total = Int64(parts[1])
        if let total, total <= end { return nil }
        self.total = total
    }
}
