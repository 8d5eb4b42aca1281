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
/// - Bytes on disk are continued with `Range` (from ``overlap`` bytes before the
///   offset) and `If-Range` (a strong ETag, else Last-Modified). A 206 is appended
///   only when it starts at the byte asked for, carries no other validator than the
///   one sent, has the same total, and its first bytes equal the last bytes on disk
///   (``overlapMismatched()`` otherwise); anything else starts over. The overlap is
///   checked even when the validator matches: a 206 without validators, one from
///   another host after a redirect, or one that merely echoes `If-Range` proves
///   nothing by its headers.
/// - A body without a length is not complete because the connection closed: its
///   end is asked for (`Range: bytes=N-`). A 416 proves it complete; a 206 says more
///   is there, which a resume then fetches with the overlap (a validator, even the
///   one sent, is no proof: a server may echo it); a server that does not serve
///   ranges is judged by the length the feed declared.
/// - An empty body is never a complete file, and a file larger than ``sizeLimit``
///   fails and is removed.
/// - Media is asked for with `Accept-Encoding: identity`; an encoded body fails.
/// - Every failure, restarts included, counts against the retry budget. Bytes
///   beyond the most the file ever held reset the count of failures, unless the
///   attempt was a stall (a trickle is not progress); restarts are never forgiven.
struct DownloadPlanner: Sendable {
    /// How many bytes before the offset a resume asks for again, to compare.
    static let overlap: Int64 = 64 << 10
    /// The largest file downloaded unless configured otherwise (4 GiB).
    static let defaultMaxFileSize: Int64 = 4 << 30

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
        /// More bytes than this in the `.part` end the download (``tooLarge()``).
        var limit: Int64
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
        /// Send the next request at once: not a failure (the end of a body without
        /// a length is being checked).
        case verify
        case fail(DownloadError)
        /// Fail and remove `.part` and sidecar: the bytes are worth nothing.
        case abandon(DownloadError)
    }

    /// Why a body stopped early.
    enum Interruption: Equatable {
        case network(NetworkFailure)
        case tooSlow(bytesPerSecond: Int)
    }

    /// Declared lengths below this are placeholders (`length="0"`, `"1"`, made-up
    /// small numbers are common in feeds): they neither cap nor judge a download.
    static let smallestDeclaredLength: Int64 = 64 << 10
    /// The most a download may be: the configured maximum, and never more than four
    /// times a declared length.
    let sizeLimit: Int64

    let url: URL
    let cached: Validators?
    let requiredType: String?
    let policy: RetryPolicy
    /// What the feed said the file's length is (a hint: feeds are often wrong).
    let declaredLength: Int64?
    private var attempts: Int { max(1, policy.attempts) }

    /// What the sidecar on disk says of the bytes in `.part`; nil when they cannot be
    /// trusted.
    private(set) var saved: Sidecar?
    /// Confirmed bytes to continue from.
    private(set) var offset: Int64
    /// Whether the complete file is on disk (a conditional request may keep it).
    private let finalExists: Bool
    /// Where the exchange with the server is: between requests, waiting for a
    /// head, or taking a body. Each step moves it on, so what was asked and what
    /// the next request asks for cannot disagree.
    private var state = State.idle(next: .fetch)
    private var tries = Tries()
    /// The most bytes the `.part` has held: growth beyond it is progress.
    private var highWater: Int64
    /// The failures counted against the budget since the last progress.
    var failures: Int { tries.failures }

    /// Where one download's exchange with the server is, as AsyncHTTPClient's
    /// `HTTPRequestStateMachine` keeps it.
    private enum State {
        /// No request is out; the next one is `next`.
        case idle(next: Next)
        /// A request asking for `Asked` is out; its head has not come.
        case requested(Asked)
        /// The answer to `Asked` is a body being written.
        case receiving(Asked)

        /// What the request in flight (or whose body is coming) asked for.
        var asked: Asked {
            switch self {
            case .idle: .whole
            case .requested(let asked), .receiving(let asked): asked
            }
        }
    }

    /// What the next request asks for.
    private enum Next {
        /// The whole file, or the rest of the bytes on disk.
        case fetch
        /// Whether anything follows the bytes on disk: a body that ended without a
        /// length.
        case probe
    }

    /// The retry budget, spent by failures and restarts.
    private struct Tries {
        /// Failures since the last progress.
        var failures = 0
        /// Times the bytes on disk were discarded: they count with `failures` and are
        /// never reset, so a server that keeps changing its mind runs out of tries.
        var restarts = 0
        /// The length the end was last asked about: asked twice, it is a failure.
        var probedAt: Int64?

        var used: Int { failures + restarts }
    }

    /// What one request asked for.
    private enum Asked {
        /// The whole file (conditionally, when a complete copy is on disk).
        case whole
        /// The bytes from `start` on, `start` being an overlap before the
        /// confirmed ones; `If-Range` with `validator` when one was sent.
        case resume(start: Int64, validator: SentValidator?)
        /// Whether anything follows the bytes of a body that ended without a
        /// length, which start at `start`.
        case probe(start: Int64, validator: SentValidator?)

        /// The offset of the first byte asked for.
        var start: Int64 {
            switch self {
            case .whole: 0
            case .resume(let start, _), .probe(let start, _): start
            }
        }

        /// Whether it continues bytes on disk (a resume, or a probe of the end).
        var continues: Bool {
            if case .whole = self { false } else { true }
        }

        var isProbe: Bool {
            if case .probe = self { true } else { false }
        }

        var validator: SentValidator? {
            switch self {
            case .whole: nil
            case .resume(_, let validator), .probe(_, let validator): validator
            }
        }
    }

    /// The validator sent in `If-Range`, and whether it was the ETag.
    private struct SentValidator {
        let value: String
        let isETag: Bool
    }

    init(
        request: DownloadRequest,
        saved: Sidecar?,
        partLength: Int64,
        finalExists: Bool,
        policy: RetryPolicy,
        maxFileSize: Int64 = DownloadPlanner.defaultMaxFileSize
    ) {
        url = request.url
        cached = request.cached
        requiredType = request.requiredType
        declaredLength = request.declaredLength.flatMap { $0 >= Self.smallestDeclaredLength ? $0 : nil }
        sizeLimit = min(maxFileSize, declaredLength.map { $0.multipliedReportingOverflow(by: 4).partialValue } ?? .max)
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
        let probing = if case .idle(next: .probe) = state { offset > 0 && saved != nil } else { false }
        var asked = Asked.whole
        // A `.part` no longer than the overlap is not worth a resume: it is
        // downloaded again whole.
        if let saved, probing || offset > Self.overlap {
            let validator = saved.ifRangeValidator.map { SentValidator(value: $0, isETag: $0 == saved.etag) }
            asked =
                probing
                ? .probe(start: offset, validator: validator)
                : .resume(start: offset - min(Self.overlap, offset), validator: validator)
            headers.append(Header("Range", "bytes=\(asked.start)-"))
            if let validator { headers.append(Header("If-Range", validator.value)) }
        } else if let cached, finalExists {
            if let etag = cached.etag { headers.append(Header("If-None-Match", etag)) }
            if let date = cached.lastModified { headers.append(Header("If-Modified-Since", date)) }
        }
        state = .requested(asked)
        return Request(headers: headers)
    }

    /// What a response head means. `headers` are keyed by lower-cased name;
    /// `finalURL` is where redirects led: answering a resume from another host
    /// than the one asked, a validator proves nothing (a fresh download keeps the
    /// CDN's validators, as they are what the next request will meet).
    mutating func received(status: Int, headers: [String: String], finalURL: URL? = nil) -> Action {
        let action = answer(to: state.asked, status: status, headers: headers, finalURL: finalURL)
        // A body follows only a `receive`; anything else ends this request.
        state = if case .receive = action { .receiving(state.asked) } else { .idle(next: .fetch) }
        return action
    }

    private mutating func answer(
        to asked: Asked,
        status: Int,
        headers: [String: String],
        finalURL: URL?
    ) -> Action {
        var headers = headers
        if asked.continues, let finalURL,
            finalURL.host?.lowercased() != url.host?.lowercased() || finalURL.port != url.port
        {
            headers["etag"] = nil
            headers["last-modified"] = nil
        }
        if asked.isProbe, let answer = probeAnswered(status: status, headers: headers) { return answer }
        switch status {
        case 200, 206:
            break
        case 304 where cached != nil && finalExists && !asked.continues:
            return .notModified(
                Validators(
                    etag: headers["etag"] ?? cached?.etag,
                    lastModified: headers["last-modified"] ?? cached?.lastModified
                )
            )
        case 416 where asked.continues:
            if let saved, let length = saved.expectedLength, offset == length {
                return .finish(length: length)
            }
            return restart(.rangeRefused)
        case 408, 429, 500...599:
            return retry(.status(status), retryAfter: policy.retryAfter(headers["retry-after"]))
        case 300..<400:
            // A redirect the transport did not follow: one to `file:` and the like.
            if let location = headers["location"], let target = URL(string: location, relativeTo: finalURL ?? url),
                !NetworkFailure.isFetchable(target.absoluteURL)
            {
                let scheme = target.absoluteURL.scheme ?? "none"
                return .fail(.network(NetworkFailure(.redirectedToUnsupportedScheme(scheme), url: finalURL ?? url)))
            }
            return .fail(.httpStatus(status, url: url))
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
        if let expected, expected > sizeLimit, status == 200 {
            return .abandon(.tooLarge(limit: sizeLimit, url: url))
        }
        var restarted: RestartReason?
        if status == 206 {
            guard let range = ContentRange(headers["content-range"]), range.start == asked.start else {
                let received = ContentRange(headers["content-range"])?.start
                return restart(.wrongOffset(requested: asked.start, received: received))
            }
            if let sent = asked.validator,
                let answered = headers[sent.isETag ? "etag" : "last-modified"], answered != sent.value
            {
                // A missing header says nothing: the server honoured If-Range.
                return restart(.validatorChanged)
            }
            let total = range.total ?? expected.map { $0 + range.start }
            if let was = saved?.expectedLength, let total, was != total {
                return restart(.lengthChanged(was: was, now: total))
            }
            if let total, total > sizeLimit {
                return .abandon(.tooLarge(limit: sizeLimit, url: url))
            }
            start = range.start
            expected = total
        } else if asked.continues {
            // A 200 to a Range request carries the whole file: take it, and count
            // the discarded bytes as a failure so that a server that never resumes
            // cannot keep the download going round.
            tries.restarts += 1
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
                limit: sizeLimit,
                restarted: restarted
            )
        )
    }

    /// What the answer to "is there more after the bytes on disk?" means; nil for an
    /// answer the usual rules take (an error status, another file).
    private mutating func probeAnswered(status: Int, headers: [String: String]) -> Action? {
        switch status {
        case 416:
            // Nothing after the last byte: the file is complete, unless the server
            // says its length is another.
            let total = headers["content-range"].flatMap { header -> Int64? in
                guard header.hasPrefix("bytes */") else { return nil }
                return Int64(header.dropFirst("bytes */".count))
            }
            if let total, total != offset { return restart(.lengthChanged(was: offset, now: total)) }
            return .finish(length: offset)
        case 206:
            // More is there, but nothing here proves it continues these bytes (not
            // even the validator sent, which a server may echo): ask again with the
            // overlap to compare.
            return .verify
        case 200:
            if let etag = headers["etag"], let was = saved?.etag, etag != was {
                return nil  // another file: the usual rules start over with it
            }
            if let length = headers["content-length"].flatMap(Int64.init) {
                return length == offset ? .finish(length: offset) : nil
            }
            // No ranges and no length: only the feed's word is left.
            if let declared = declaredLength, offset < declared * 3 / 4 {
                return .fail(.truncated(received: offset, declared: declared, url: url))
            }
            return .finish(length: offset)
        default:
            return nil
        }
    }

    /// The overlap asked for without validators differs from the bytes on disk.
    mutating func overlapMismatched() -> Action {
        state = .idle(next: .fetch)
        return restart(.overlapMismatch)
    }

    /// The request failed before a response head arrived.
    mutating func failed(_ failure: NetworkFailure) -> Action {
        state = .idle(next: .fetch)
        guard failure.isTransient else { return .fail(.network(failure)) }
        return retry(.network(failure), retryAfter: nil)
    }

    /// The body ended (completely, or early for `interruption`) with the `.part`
    /// holding `partLength` bytes, all of them synced and recorded by the caller
    /// when it retries.
    mutating func bodyEnded(partLength: Int64, expected: Int64?, interruption: Interruption?) -> Action {
        state = .idle(next: .fetch)
        offset = partLength
        saved?.confirmedBytes = partLength
        if partLength > highWater {
            highWater = partLength
            if case .tooSlow = interruption {} else { tries.failures = 0 }
        }
        if let expected, partLength > expected {
            return .fail(.lengthMismatch(expected: expected, received: partLength))
        }
        if partLength > sizeLimit {
            return .abandon(.tooLarge(limit: sizeLimit, url: url))
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
            if partLength == 0 { return .abandon(.emptyBody(url: url)) }
            if expected == nil {
                // The connection closed: that proves nothing. Ask for what follows,
                // once for each length: a server that said more follows and then
                // sent none counts as a failure, so that it cannot keep us asking.
                if tries.probedAt == partLength {
                    return retry(.endUnconfirmed(at: partLength), retryAfter: nil)
                }
                tries.probedAt = partLength
                state = .idle(next: .probe)
                return .verify
            }
            return .finish(length: partLength)
        }
    }

    private mutating func restart(_ reason: RestartReason) -> Action {
        offset = 0
        saved = nil
        tries.restarts += 1
        return next(.restarted(reason), retryAfter: nil, discard: true)
    }

    private mutating func retry(_ reason: RetryReason, retryAfter: Duration?) -> Action {
        tries.failures += 1
        return next(reason, retryAfter: retryAfter, discard: false)
    }

    private func next(_ reason: RetryReason, retryAfter: Duration?, discard: Bool) -> Action {
        if let end = outOfTries(reason) { return end }
        return .retry(Retry(attempt: tries.used + 1, retryAfter: retryAfter, reason: reason, discard: discard))
    }

    /// The failure that ends the download once the tries are used up (`last` says
    /// why the last one failed); nil while tries are left.
    private func outOfTries(_ last: RetryReason) -> Action? {
        tries.used < attempts ? nil : .fail(.gaveUp(attempts: tries.used, last: last))
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
public struct ContentRange: Equatable, Sendable {
    public let start: Int64
    public let end: Int64
    public let total: Int64?

    public init?(_ header: String?) {
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
