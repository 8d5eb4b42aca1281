import Foundation
import HTTPSupport
import Testing

@testable import Downloads

/// The planner's rules, one response at a time, without sockets or files.
@Suite("Download planner")
struct DownloadPlannerTests {
    static let url = URL(string: "http://media.example/a.mp3")!
    static let etag = "\"v1\""
    static let date = "Sun, 01 Nov 2026 00:00:00 GMT"
    /// Where resumes continue (past the overlap), what they ask for (the overlap
    /// before it), and the file's length.
    static let at: Int64 = 100_000
    static let asked = at - DownloadPlanner.overlap
    static let total: Int64 = 300_000
    /// The Content-Range of a 206 that answers a resume as asked.
    static let resumed = "bytes \(asked)-\(total - 1)/\(total)"

    static func request(
        cached: Validators? = nil,
        requiredType: String? = nil,
        declared: Int64? = nil
    ) -> DownloadRequest {
        DownloadRequest(
            id: "a",
            url: url,
            file: DownloadLayout.File(final: URL(fileURLWithPath: "/tmp/a.mp3")),
            cached: cached,
            requiredType: requiredType,
            declaredLength: declared
        )
    }

    static func saved(
        confirmed: Int64,
        etag: String? = etag,
        lastModified: String? = nil,
        expected: Int64? = total
    ) -> Sidecar {
        Sidecar(
            url: url.absoluteString,
            etag: etag,
            lastModified: lastModified,
            expectedLength: expected,
            confirmedBytes: confirmed,
            contentType: "audio/mpeg"
        )
    }

    static func planner(
        saved: Sidecar? = nil,
        part: Int64 = 0,
        finalExists: Bool = false,
        request: DownloadRequest = request(),
        attempts: Int = 5,
        maxFileSize: Int64 = DownloadPlanner.defaultMaxFileSize
    ) -> DownloadPlanner {
        DownloadPlanner(
            request: request,
            saved: saved,
            partLength: part,
            finalExists: finalExists,
            policy: RetryPolicy(attempts: attempts),
            maxFileSize: maxFileSize
        )
    }

    static func headers(_ request: DownloadPlanner.Request) -> [String: String] {
        Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    }

    static func receptionOf(_ action: DownloadPlanner.Action) -> DownloadPlanner.Reception? {
        if case .receive(let reception) = action { return reception }
        return nil
    }

    static func retryOf(_ action: DownloadPlanner.Action) -> DownloadPlanner.Retry? {
        if case .retry(let retry) = action { return retry }
        return nil
    }

    // MARK: What is asked for

    @Test func aFreshDownloadAsksForIdentityAndNoRange() {
        var planner = Self.planner()
        let headers = Self.headers(planner.nextRequest())
        #expect(headers == ["Accept-Encoding": "identity"])
    }

    @Test func aResumeSendsRangeFromTheOverlapAndTheStrongETag() {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at + 200)
        let headers = Self.headers(planner.nextRequest())
        // Only confirmed bytes are trusted (not the 200 more on disk), and the last
        // `overlap` of them are asked for again, to compare.
        #expect(headers["Range"] == "bytes=\(Self.asked)-")
        #expect(headers["If-Range"] == Self.etag)
    }

    @Test func aWeakETagFallsBackToLastModified() {
        let saved = Self.saved(confirmed: Self.at, etag: "W/\"weak\"", lastModified: Self.date)
        var planner = Self.planner(saved: saved, part: Self.at)
        #expect(Self.headers(planner.nextRequest())["If-Range"] == Self.date)
    }

    @Test func withoutValidatorsTheOverlapIsAskedForAgain() {
        let saved = Self.saved(confirmed: Self.at, etag: nil)
        var planner = Self.planner(saved: saved, part: Self.at)
        let headers = Self.headers(planner.nextRequest())
        #expect(headers["Range"] == "bytes=\(Self.asked)-")
        #expect(headers["If-Range"] == nil)
    }

    /// No more bytes than the overlap: not worth a resume, fetched again whole.
    @Test func aPartNoLongerThanTheOverlapIsFetchedAgain() {
        var small = Self.planner(saved: Self.saved(confirmed: DownloadPlanner.overlap), part: DownloadPlanner.overlap)
        #expect(Self.headers(small.nextRequest())["Range"] == nil)
    }

    @Test func aSidecarOfAnotherURLIsIgnored() {
        var other = Self.saved(confirmed: 400)
        other.url = "http://elsewhere.example/b.mp3"
        var planner = Self.planner(saved: other, part: 400)
        #expect(Self.headers(planner.nextRequest())["Range"] == nil)
    }

    @Test func aCachedFileIsAskedForConditionally() {
        let cached = Validators(etag: Self.etag, lastModified: Self.date)
        var planner = Self.planner(finalExists: true, request: Self.request(cached: cached))
        let headers = Self.headers(planner.nextRequest())
        #expect(headers["If-None-Match"] == Self.etag && headers["If-Modified-Since"] == Self.date)
        #expect(
            planner.received(status: 304, headers: [:])
                == .notModified(Validators(etag: Self.etag, lastModified: Self.date))
        )
    }

    // MARK: What a response head means

    @Test func aMatching206AppendsAfterTheOverlap() throws {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at)
        _ = planner.nextRequest()
        let action = planner.received(
            status: 206,
            headers: ["content-range": Self.resumed, "etag": Self.etag, "content-type": "audio/mpeg"]
        )
        let reception = try #require(Self.receptionOf(action))
        #expect(reception.offset == Self.at && reception.verify == DownloadPlanner.overlap)
        #expect(reception.expected == Self.total)
        #expect(reception.record.confirmedBytes == Self.at && reception.restarted == nil)
    }

    @Test func a206WithoutValidatorHeadersKeepsTheRecordedOnes() throws {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at, lastModified: Self.date), part: Self.at)
        _ = planner.nextRequest()
        let action = planner.received(status: 206, headers: ["content-range": Self.resumed])
        let reception = try #require(Self.receptionOf(action))
        // Appended only if the overlap matches: the headers prove nothing.
        #expect(reception.verify == DownloadPlanner.overlap)
        #expect(reception.record.etag == Self.etag && reception.record.lastModified == Self.date)
    }

    /// A 206 from another host (after a redirect) is taken as one without
    /// validators, whatever it carries.
    @Test func aValidatorFromAnotherHostCountsForNothing() throws {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at)
        _ = planner.nextRequest()
        let action = planner.received(
            status: 206,
            headers: ["content-range": Self.resumed, "etag": "\"other\""],
            finalURL: URL(string: "http://cdn.example/a.mp3")!
        )
        let reception = try #require(Self.receptionOf(action))
        #expect(reception.verify == DownloadPlanner.overlap && reception.record.etag == Self.etag)
        // A fresh download behind a redirect keeps the validators it was given.
        var fresh = Self.planner()
        _ = fresh.nextRequest()
        let first = fresh.received(
            status: 200,
            headers: ["etag": Self.etag],
            finalURL: URL(string: "http://cdn.example/a.mp3")!
        )
        #expect(Self.receptionOf(first)?.record.etag == Self.etag)
    }

    @Test func a206OfAnotherVersionRestarts() throws {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at)
        _ = planner.nextRequest()
        let action = planner.received(status: 206, headers: ["content-range": Self.resumed, "etag": "\"v2\""])
        let retry = try #require(Self.retryOf(action))
        #expect(retry.reason == .restarted(.validatorChanged) && retry.discard)
        // The next request starts from zero, without Range.
        #expect(Self.headers(planner.nextRequest())["Range"] == nil)
    }

    @Test func a206WithAnotherLastModifiedRestarts() throws {
        let saved = Self.saved(confirmed: Self.at, etag: nil, lastModified: Self.date)
        var planner = Self.planner(saved: saved, part: Self.at)
        _ = planner.nextRequest()
        let action = planner.received(
            status: 206,
            headers: ["content-range": Self.resumed, "last-modified": "Mon, 02 Nov 2026 00:00:00 GMT"]
        )
        #expect(Self.retryOf(action)?.reason == .restarted(.validatorChanged))
    }

    @Test(arguments: [
        ("bytes 40000-299999/300000" as String?, RestartReason.wrongOffset(requested: 34_464, received: 40_000)),
        (nil, .wrongOffset(requested: 34_464, received: nil)),
        ("bytes 34464-399999/400000", .lengthChanged(was: 300_000, now: 400_000)),
        ("garbage", .wrongOffset(requested: 34_464, received: nil)),
    ])
    func aBadPartialAnswerIsNotAppended(contentRange: String?, reason: RestartReason) throws {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at)
        _ = planner.nextRequest()
        var headers = ["etag": Self.etag]
        headers["content-range"] = contentRange
        let retry = try #require(Self.retryOf(planner.received(status: 206, headers: headers)))
        #expect(retry.reason == .restarted(reason) && retry.discard)
    }

    @Test func withoutValidatorsTheOverlapIsVerified() throws {
        let saved = Self.saved(confirmed: Self.at, etag: nil)
        var planner = Self.planner(saved: saved, part: Self.at)
        _ = planner.nextRequest()
        let action = planner.received(status: 206, headers: ["content-range": Self.resumed])
        let reception = try #require(Self.receptionOf(action))
        #expect(reception.offset == Self.at && reception.verify == DownloadPlanner.overlap)
        #expect(planner.overlapMismatched() == .retry(.init(attempt: 2, reason: .restarted(.overlapMismatch))))
    }

    @Test func a200ToARangeRequestStartsOverAndCounts() throws {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at, attempts: 2)
        _ = planner.nextRequest()
        let reception = try #require(
            Self.receptionOf(planner.received(status: 200, headers: ["content-length": "300000"]))
        )
        #expect(reception.offset == 0 && reception.restarted == .rangeIgnored && reception.expected == Self.total)
        // A server that never resumes runs out of tries instead of going round.
        #expect(
            planner.bodyEnded(partLength: 300, expected: Self.total, interruption: nil)
                == .fail(.gaveUp(attempts: 2, last: .shortBody(received: 300, expected: Self.total)))
        )
    }

    @Test func encodedMediaFails() {
        for encoding in ["gzip", "deflate", "br", "GZIP "] {
            var planner = Self.planner()
            _ = planner.nextRequest()
            #expect(
                planner.received(status: 200, headers: ["content-encoding": encoding])
                    == .fail(.encoded(encoding.trimmingCharacters(in: .whitespaces).lowercased(), url: Self.url))
            )
        }
        var identity = Self.planner()
        _ = identity.nextRequest()
        #expect(Self.receptionOf(identity.received(status: 200, headers: ["content-encoding": "identity"])) != nil)
    }

    @Test func webPagesAndWrongTypesFail() {
        var planner = Self.planner()
        _ = planner.nextRequest()
        #expect(
            planner.received(status: 200, headers: ["content-type": "text/html; charset=utf-8"])
                == .fail(.notMedia(contentType: "text/html; charset=utf-8", url: Self.url))
        )
        var image = Self.planner(request: Self.request(requiredType: "image/"))
        _ = image.nextRequest()
        #expect(
            image.received(status: 200, headers: ["content-type": "audio/mpeg"])
                == .fail(.wrongType("audio/mpeg", expected: "image/", url: Self.url))
        )
    }

    @Test(arguments: [404, 403, 401, 410, 204, 302, 304])
    func finalStatusesFailAtOnce(status: Int) {
        var planner = Self.planner()
        _ = planner.nextRequest()
        #expect(planner.received(status: status, headers: [:]) == .fail(.httpStatus(status, url: Self.url)))
    }

    @Test(arguments: [408, 429, 500, 503, 504])
    func transientStatusesRetryWithRetryAfter(status: Int) throws {
        var planner = Self.planner()
        _ = planner.nextRequest()
        let retry = try #require(Self.retryOf(planner.received(status: status, headers: ["retry-after": "3"])))
        #expect(retry == .init(attempt: 2, retryAfter: .seconds(3), reason: .status(status)))
    }

    @Test func a416OnACompletePartFinishes() {
        var planner = Self.planner(saved: Self.saved(confirmed: Self.total), part: Self.total)
        _ = planner.nextRequest()
        #expect(planner.received(status: 416, headers: [:]) == .finish(length: Self.total))
        var partial = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at)
        _ = partial.nextRequest()
        #expect(Self.retryOf(partial.received(status: 416, headers: [:]))?.reason == .restarted(.rangeRefused))
    }

    // MARK: A body without a length

    /// The connection closed without a length: the end is asked for. A 416 proves
    /// the file complete.
    @Test func aBodyWithoutALengthIsCheckedAtItsEnd() throws {
        var planner = Self.planner()
        _ = planner.nextRequest()
        _ = planner.received(status: 200, headers: ["etag": Self.etag])
        #expect(planner.bodyEnded(partLength: 40_000, expected: nil, interruption: nil) == .verify)
        let headers = Self.headers(planner.nextRequest())
        #expect(headers["Range"] == "bytes=40000-" && headers["If-Range"] == Self.etag)
        #expect(planner.received(status: 416, headers: ["content-range": "bytes */40000"]) == .finish(length: 40_000))
    }

    /// More is there: even a 206 with the validator sent (which a server may echo)
    /// only leads to a resume that compares the overlap.
    @Test func moreAfterTheEndIsAppendedOnlyWhenProven() throws {
        for validator in [nil, Self.etag] {
            var planner = Self.planner()
            _ = planner.nextRequest()
            _ = planner.received(status: 200, headers: ["etag": Self.etag])
            _ = planner.bodyEnded(partLength: Self.at, expected: nil, interruption: nil)
            _ = planner.nextRequest()
            var more = ["content-range": "bytes \(Self.at)-\(Self.total - 1)/\(Self.total)"]
            more["etag"] = validator
            #expect(planner.received(status: 206, headers: more) == .verify)
            #expect(Self.headers(planner.nextRequest())["Range"] == "bytes=\(Self.asked)-")
            let resumed = ["content-range": Self.resumed, "etag": Self.etag]
            let reception = try #require(Self.receptionOf(planner.received(status: 206, headers: resumed)))
            #expect(reception.offset == Self.at && reception.verify == DownloadPlanner.overlap)
        }
    }

    /// A server that says more follows and then sends none cannot keep the
    /// download asking: the second time at one length is a failure.
    @Test func anEndThatNeverComesCountsAsAFailure() {
        var planner = Self.planner(attempts: 2)
        _ = planner.nextRequest()
        _ = planner.received(status: 200, headers: [:])
        #expect(planner.bodyEnded(partLength: Self.at, expected: nil, interruption: nil) == .verify)
        _ = planner.nextRequest()
        #expect(planner.received(status: 206, headers: ["content-range": "bytes \(Self.at)-*/*"]) == .verify)
        _ = planner.nextRequest()
        _ = planner.received(status: 206, headers: ["content-range": "bytes \(Self.asked)-\(Self.at - 1)/*"])
        #expect(
            Self.retryOf(planner.bodyEnded(partLength: Self.at, expected: nil, interruption: nil))?.reason
                == .endUnconfirmed(at: Self.at)
        )
    }

    /// A server without ranges: a body far short of the declared length fails (the
    /// `.part` is kept); near it, or with nothing declared, it stands.
    @Test func withoutRangesTheDeclaredLengthJudges() {
        func ending(declared: Int64?, received: Int64) -> DownloadPlanner.Action {
            var planner = Self.planner(request: Self.request(declared: declared))
            _ = planner.nextRequest()
            _ = planner.received(status: 200, headers: [:])
            _ = planner.bodyEnded(partLength: received, expected: nil, interruption: nil)
            _ = planner.nextRequest()
            return planner.received(status: 200, headers: [:])
        }
        #expect(
            ending(declared: 100_000, received: 40_000)
                == .fail(.truncated(received: 40_000, declared: 100_000, url: Self.url))
        )
        #expect(ending(declared: 100_000, received: 99_000) == .finish(length: 99_000))
        #expect(ending(declared: nil, received: 40_000) == .finish(length: 40_000))
    }

    @Test func anEmptyBodyIsAbandoned() {
        var planner = Self.planner()
        _ = planner.nextRequest()
        _ = planner.received(status: 200, headers: ["content-length": "0"])
        #expect(planner.bodyEnded(partLength: 0, expected: 0, interruption: nil) == .abandon(.emptyBody(url: Self.url)))
    }

    /// Four times a declared length, or the maximum: announced or reached.
    @Test func theSizeLimit() {
        var declared = Self.planner(request: Self.request(declared: 100_000))
        _ = declared.nextRequest()
        #expect(
            declared.received(status: 200, headers: ["content-length": "400001"])
                == .abandon(.tooLarge(limit: 400_000, url: Self.url))
        )
        var capped = Self.planner(maxFileSize: 1 << 20)
        _ = capped.nextRequest()
        let reception = Self.receptionOf(capped.received(status: 200, headers: [:]))
        #expect(reception?.limit == 1 << 20)
        #expect(
            capped.bodyEnded(partLength: (1 << 20) + 1, expected: nil, interruption: nil)
                == .abandon(.tooLarge(limit: 1 << 20, url: Self.url))
        )
        // A placeholder length caps nothing.
        var placeholder = Self.planner(request: Self.request(declared: 1))
        _ = placeholder.nextRequest()
        #expect(Self.receptionOf(placeholder.received(status: 200, headers: ["content-length": "5000000"])) != nil)
    }

    // MARK: How a body ends, and the budget

    @Test func aCompleteBodyFinishesAndALongOneFails() {
        var planner = Self.planner()
        _ = planner.nextRequest()
        _ = planner.received(status: 200, headers: ["content-length": "1000"])
        #expect(planner.bodyEnded(partLength: 1000, expected: 1000, interruption: nil) == .finish(length: 1000))
        #expect(
            planner.bodyEnded(partLength: 1001, expected: 1000, interruption: nil)
                == .fail(.lengthMismatch(expected: 1000, received: 1001))
        )
    }

    @Test func everyFailureClassCountsAgainstTheBudget() {
        let dropped = NetworkFailure(.connectionDropped, url: Self.url)
        let endings: [DownloadPlanner.Action] = {
            var planner = Self.planner(attempts: 5)
            var actions: [DownloadPlanner.Action] = []
            _ = planner.nextRequest()
            actions.append(planner.received(status: 503, headers: [:]))
            actions.append(planner.failed(dropped))
            _ = planner.received(status: 200, headers: ["content-length": "1000"])
            actions.append(planner.bodyEnded(partLength: 0, expected: 1000, interruption: nil))
            actions.append(
                planner.bodyEnded(partLength: 0, expected: 1000, interruption: .tooSlow(bytesPerSecond: 1024))
            )
            actions.append(planner.bodyEnded(partLength: 0, expected: nil, interruption: .network(dropped)))
            return actions
        }()
        #expect(endings.prefix(4).map { Self.retryOf($0)?.attempt } == [2, 3, 4, 5])
        #expect(endings.last == .fail(.gaveUp(attempts: 5, last: .network(dropped))))
    }

    @Test func restartsAndStallsAreNeverForgiven() {
        var planner = Self.planner(attempts: 3)
        _ = planner.nextRequest()
        _ = planner.received(status: 200, headers: ["content-length": "1000"])
        // A trickle makes a little progress each time and still runs out of tries.
        #expect(
            Self.retryOf(
                planner.bodyEnded(partLength: 10, expected: 1000, interruption: .tooSlow(bytesPerSecond: 1024))
            )?.attempt == 2
        )
        #expect(
            Self.retryOf(
                planner.bodyEnded(partLength: 20, expected: 1000, interruption: .tooSlow(bytesPerSecond: 1024))
            )?.attempt == 3
        )
        #expect(
            planner.bodyEnded(partLength: 30, expected: 1000, interruption: .tooSlow(bytesPerSecond: 1024))
                == .fail(.gaveUp(attempts: 3, last: .tooSlow(bytesPerSecond: 1024)))
        )
        // Bytes fetched again after a restart do not wipe the restart out.
        var restarting = Self.planner(saved: Self.saved(confirmed: Self.at), part: Self.at, attempts: 3)
        _ = restarting.nextRequest()
        let restart = restarting.received(
            status: 206,
            headers: ["content-range": "bytes 40000-299999/300000", "etag": Self.etag]
        )
        #expect(Self.retryOf(restart)?.attempt == 2)
        _ = restarting.nextRequest()
        _ = restarting.received(status: 200, headers: ["content-length": "300000", "etag": Self.etag])
        // More bytes than ever: the failures are forgiven, the restart is not.
        #expect(
            Self.retryOf(restarting.bodyEnded(partLength: 200_000, expected: 300_000, interruption: nil))?.attempt == 3
        )
        _ = restarting.nextRequest()
        #expect(
            restarting.received(status: 503, headers: [:]) == .fail(.gaveUp(attempts: 3, last: .status(503)))
        )
    }

    @Test func progressBeyondTheMostEverHeldResetsTheBudget() throws {
        var planner = Self.planner(attempts: 3)
        _ = planner.nextRequest()
        _ = planner.received(status: 200, headers: ["content-length": "1000"])
        #expect(Self.retryOf(planner.bodyEnded(partLength: 100, expected: 1000, interruption: nil))?.attempt == 2)
        // No new bytes: the count goes on.
        #expect(Self.retryOf(planner.bodyEnded(partLength: 100, expected: 1000, interruption: nil))?.attempt == 3)
        // More bytes than ever: the count starts again.
        #expect(Self.retryOf(planner.bodyEnded(partLength: 200, expected: 1000, interruption: nil))?.attempt == 2)
    }

    @Test func finalNetworkFailuresFailAtOnce() {
        for reason in [NetworkFailure.Reason.connectionRefused, .tooManyRedirects, .redirectLoop, .tls("bad")] {
            var planner = Self.planner()
            _ = planner.nextRequest()
            let failure = NetworkFailure(reason, url: Self.url)
            #expect(planner.failed(failure) == .fail(.network(failure)))
        }
    }

    // MARK: The policy

    @Test func jitterIsHalfFixedHalfRandomAndCapped() {
        var policy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(10), random: { 0 })
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil) == .seconds(2))
        policy.random = { 1 }
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil) == .seconds(4))
        #expect(policy.delay(afterAttempt: 30, retryAfter: nil) == .seconds(10))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(60)) == .seconds(10))
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let policy = RetryPolicy(now: { now })
        #expect(policy.retryAfter("120") == .seconds(120))
        #expect(policy.retryAfter("Sun, 06 Nov 1994 08:50:07 GMT") == .seconds(30))
        #expect(policy.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT") == .zero)
        #expect(policy.retryAfter("-5") == nil)
        #expect(policy.retryAfter("soon") == nil)
        #expect(policy.retryAfter(nil) == nil)
    }

    @Test func lowSpeedNeedsLimitTimesWindowBytesPerWindow() {
        let start = ContinuousClock.now
        var detector = LowSpeedDetector(limit: 1000, window: .seconds(10), bytes: 0, at: start)
        let early = detector.isStalled(bytes: 5000, at: start + .seconds(5))
        let late = detector.isStalled(bytes: 9000, at: start + .seconds(10))
        #expect(!early && late)
        var fast = LowSpeedDetector(limit: 1000, window: .seconds(10), bytes: 0, at: start)
        let enough = fast.isStalled(bytes: 10_000, at: start + .seconds(9))
        // A new window began at 9 s.
        let within = fast.isStalled(bytes: 10_001, at: start + .seconds(18))
        let after = fast.isStalled(bytes: 10_002, at: start + .seconds(19))
        #expect(!enough && !within && after)
    }
}

extension DownloadPlanner.Retry {
    init(attempt: Int, retryAfter: Duration? = nil, reason: RetryReason) {
        self.init(
            attempt: attempt,
            retryAfter: retryAfter,
            reason: reason,
            discard: {
                if case .restarted = reason { return true }
                return false
            }()
        )
    }
}

@Suite("Rate meter")
struct RateMeterTests {
    @Test func noRateUntilASecondIsMeasured() {
        let start = ContinuousClock.now
        var meter = RateMeter(start: 0, at: start)
        // What the socket had buffered arrives at once: no absurd first reading.
        meter.record(bytes: 65_536, at: start + .milliseconds(100))
        #expect(meter.rate == nil)
        meter.record(bytes: 1_000_000, at: start + .seconds(1))
        #expect(meter.rate == 1_000_000)
        meter.record(bytes: 2_000_000, at: start + .seconds(2))
        let rate = meter.rate ?? 0
        #expect(rate > 990_000 && rate < 1_010_000)
    }
}
