import FeedKit
import Foundation
import Synchronization

/// What an update did to one subscription.
public struct UpdateResult: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// The feed was read; this many episodes arrived and are new (as `new`
        /// lists them: the first read of a feed marks none new).
        case updated(newEpisodes: Int)
        /// 304: nothing changed.
        case unchanged
        case failed(UpdateFailure)
        /// 410: the publisher took the feed down.
        case gone
        /// The update was cancelled (Ctrl-C) before this feed was read: nothing was
        /// recorded against it.
        case interrupted
        /// The whole update's deadline (``FeedUpdater/deadline(forFeeds:)``)
        /// passed before this feed was read: nothing was recorded against it.
        case unfinished
    }

    public var podcastID: Int64
    public var title: String
    public var status: Status
    /// Episodes stored for the first time, new or not: on a feed's first read,
    /// its whole history (none of it marked new).
    public var added = 0
}

/// Refreshes many subscriptions at once: `concurrency` feeds in flight, at most
/// `perHost` to one host, each stored as soon as it arrives (its own transaction)
/// and each failure recorded on its podcast without stopping the others.
///
/// Slow servers do not hold everyone: a feed still not read after ``slowAfter``
/// gives its slot to the next one (up to ``maxInFlight`` in flight in all), and
/// the whole update ends by a deadline that grows with the number of feeds
/// (``deadline(forFeeds:)``), whatever the slowest server does.
public struct FeedUpdater: Sendable {
    public let library: Library
    public let client: any FeedFetching
    public var concurrency: Int
    public var perHost: Int
    /// How long a feed holds one of the `concurrency` slots.
    public var slowAfter: Duration = .seconds(5)
    /// The most feeds in flight, slow ones included.
    public var maxInFlight: Int

    public init(library: Library, client: any FeedFetching, concurrency: Int = 8, perHost: Int = 2) {
        self.library = library
        self.client = client
        self.concurrency = max(1, concurrency)
        self.perHost = max(1, perHost)
        maxInFlight = self.concurrency * 8
    }

    /// The longest an update of `count` feeds takes: 2 minutes, and a quarter of
    /// a second more for each feed (500 feeds: about 4 minutes; a healthy
    /// update of them takes seconds).
    public static func deadline(forFeeds count: Int) -> Duration {
        .seconds(120) + .milliseconds(250) * count
    }

    /// What one child of an update's task group says.
    private enum Event: Sendable {
        case finished(token: Int, host: String, UpdateResult)
        /// The feed of `token` has taken ``slowAfter``: it gives up its slot.
        case slow(token: Int)
        case deadline
        /// A timer cancelled because the update is done.
        case stopped
    }

    /// Updates `podcasts`; `progress` hears (done, total, failed) after each.
    /// Those not read by `deadline` (by default ``deadline(forFeeds:)``) are
    /// `.unfinished`.
    public func update(
        _ podcasts: [StoredPodcast],
        deadline: Duration? = nil,
        progress: @escaping @Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void = { _, _, _ in }
    ) async -> [UpdateResult] {
        let deadline = deadline ?? Self.deadline(forFeeds: podcasts.count)
        let slowAfter = self.slowAfter
        // Each feed with its host, worked out once: the scan below runs on every
        // finished feed, and parsing every pending URL there made 500 feeds on one
        // host cost 250,000 URL parses.
        var pending = podcasts.map { podcast in
            (podcast: podcast, host: URL(string: podcast.feedURL)?.host?.lowercased() ?? podcast.feedURL)
        }[...]
        // Every private feed's credentials in one read, not one read a feed.
        let credentials = (try? await library.allCredentials()) ?? [:]
        var inFlight: [String: Int] = [:]
        var results: [UpdateResult] = []
        var failed = 0
        var deadlinePassed = false
        await withTaskGroup(of: Event.self) { group in
            // Feeds holding a slot, and all feeds in flight.
            var holding: Set<Int> = []
            var running = 0
            var nextToken = 0
            func timer(_ wait: Duration, _ event: Event) -> @Sendable () async -> Event {
                {
                    do {
                        try await Task.sleep(for: wait)
                        return event
                    } catch {
                        return .stopped
                    }
                }
            }
            func startMore() {
                while holding.count < concurrency, running < maxInFlight,
                    let index = pending.firstIndex(where: { inFlight[$0.host, default: 0] < perHost })
                {
                    let (podcast, key) = pending[index]
                    pending.remove(at: index)
                    inFlight[key, default: 0] += 1
                    let token = nextToken
                    nextToken += 1
                    holding.insert(token)
                    running += 1
                    group.addTask {
                        .finished(
                            token: token,
                            host: key,
                            await self.update(podcast, credentials: .known(credentials[podcast.id ?? -1]))
                        )
                    }
                    group.addTask(operation: timer(slowAfter, .slow(token: token)))
                }
            }
            group.addTask(operation: timer(deadline, .deadline))
            startMore()
            if running == 0 { group.cancelAll() }
            while let event = await group.next() {
                switch event {
                case .finished(let token, let key, var result):
                    running -= 1
                    holding.remove(token)
                    inFlight[key, default: 1] -= 1
                    if deadlinePassed, result.status == .interrupted { result.status = .unfinished }
                    results.append(result)
                    if case .failed = result.status { failed += 1 }
                    progress(results.count, podcasts.count, failed)
                case .slow(let token):
                    holding.remove(token)
                case .deadline:
                    deadlinePassed = true
                    group.cancelAll()
                case .stopped:
                    break
                }
                if !Task.isCancelled, !deadlinePassed { startMore() }
                // Every feed read: the timers still asleep are not waited for.
                if running == 0, pending.isEmpty || deadlinePassed || Task.isCancelled { group.cancelAll() }
            }
        }
        if deadlinePassed {
            results += pending.map {
                UpdateResult(podcastID: $0.podcast.id ?? -1, title: $0.podcast.title, status: .unfinished)
            }
        }
        // In the order asked for.
        let order = Dictionary(uniqueKeysWithValues: podcasts.enumerated().map { ($0.element.id ?? -1, $0.offset) })
        return results.sorted { (order[$0.podcastID] ?? 0) < (order[$1.podcastID] ?? 0) }
    }

    /// Where ``update(_:trackIDs:credentials:)`` finds a feed's credentials.
    public enum GivenCredentials: Sendable {
        /// Read from the library.
        case stored
        /// Read already (with every other feed's, for an update of many).
        case known(FeedCredentials?)
    }

    /// Fetches one feed and stores what came, in batches as it is parsed (a new
    /// subscription's first read is ``subscribe(feedURL:title:itunesID:trackIDs:credentials:)``'s,
    /// in one transaction with the subscription).
    public func update(
        _ podcast: StoredPodcast,
        trackIDs: [String: Int64] = [:],
        credentials given: GivenCredentials = .stored
    ) async -> UpdateResult {
        let id = podcast.id ?? -1
        var result = UpdateResult(podcastID: id, title: podcast.title, status: .unchanged)
        guard let url = URL(string: podcast.feedURL) else {
            result.status = .failed(.notAURL(podcast.feedURL))
            return result
        }
        // Items are stored in batches while the feed is parsed: a feed of thousands
        // of episodes is never held whole.
        let batches = BatchState()
        let markNew = podcast.updateCount > 0
        let library = self.library
        let sink: FeedItemSink = { items in
            do throws(LibraryError) {
                let arrived = try library.storeItems(items, podcastID: id, markNew: markNew, trackIDs: trackIDs)
                batches.arrived.withLock { $0 += arrived }
                return true
            } catch {
                batches.failure.withLock { $0 = error }
                return false
            }
        }
        do throws(FeedError) {
            // A private feed's user name and password, sent to its origin only.
            let credentials =
                switch given {
                case .stored: try? await library.credentials(of: id)
                case .known(let known): known
                }
            let outcome = try await client.fetch(
                url,
                etag: podcast.etag,
                lastModified: podcast.lastModified,
                credentials: credentials,
                sink: sink
            )
            if let failure = batches.failure.withLock({ $0 }) {
                result.status = Task.isCancelled ? .interrupted : .failed(.library(failure))
                return result
            }
            switch outcome {
            case .notModified(let movedTo):
                try? await library.storeUnchanged(id, movedTo: movedTo)
            case .gone:
                result.status = .gone
                try? await library.storeGone(id)
            case .fetched(let feed, let etag, let lastModified, let movedTo):
                if !feed.title.isEmpty { result.title = feed.title }
                do throws(LibraryError) {
                    let arrived = try await library.store(
                        feed,
                        for: id,
                        validators: (etag, lastModified),
                        movedTo: movedTo,
                        trackIDs: trackIDs
                    )
                    result.added = arrived + batches.arrived.withLock { $0 }
                    result.status = .updated(newEpisodes: markNew ? result.added : 0)
                } catch {
                    // Cancelled (Ctrl-C, the update's deadline): the transaction
                    // was rolled back, and that is no failure of the feed's.
                    result.status = Task.isCancelled ? .interrupted : .failed(.library(error))
                }
            }
        } catch {
            if Task.isCancelled {
                result.status = .interrupted
                return result
            }
            // The parser stops when storing a batch failed: that is the failure.
            let failure = batches.failure.withLock { $0 }.map(UpdateFailure.library) ?? .feed(error)
            result.status = .failed(failure)
            try? await library.storeFailure(id, failure)
        }
        return result
    }
}

/// What the batches of one update did, shared with the parser's thread.
private final class BatchState: Sendable {
    let arrived = Mutex(0)
    let failure = Mutex<LibraryError?>(nil)
}

/// Why a feed was not updated: its own failure, or the library's.
public enum UpdateFailure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Fetching or reading the feed failed.
    case feed(FeedError)
    /// Storing what came failed.
    case library(LibraryError)
    /// The stored address is no URL.
    case notAURL(String)

    /// The failure's stable code: the feed's (`truncated-body`) or the library's.
    public var code: String {
        switch self {
        case .feed(let error): error.code.description
        case .library(let error): error.code.description
        case .notAURL: "invalid-url"
        }
    }

    public var description: String {
        switch self {
        case .feed(let error): error.description
        case .library(let error): error.description
        case .notAURL(let text): "not a URL: \(text)"
        }
    }
}

extension FeedUpdater {
    /// Subscribes to `feedURL` and reads its feed at once: what `subscribe` does,
    /// and what a sync does for a feed another device subscribed to.
    ///
    /// A new subscription is stored only with its feed's first read, in one
    /// transaction (``Library/subscribe(feedURL:title:itunesID:credentials:firstRead:validators:movedTo:trackIDs:at:)``):
    /// a feed that cannot be read, one answered 410 Gone, and a read that is
    /// interrupted (the task cancelled) leave no subscription, and `podcast` is
    /// nil. `created` says whether the subscription was new (or would have been).
    /// For a subscription that was there, `credentials` are stored with it; when
    /// the feed refuses them, those it had before are put back.
    public func subscribe(
        feedURL: URL,
        title: String,
        itunesID: Int64? = nil,
        trackIDs: [String: Int64] = [:],
        credentials: FeedCredentials? = nil
    ) async throws(LibraryError) -> (podcast: StoredPodcast?, created: Bool, result: UpdateResult) {
        if try await library.podcast(feedURL: feedURL) != nil {
            let (stored, _) = try await library.subscribe(feedURL: feedURL, title: title, itunesID: itunesID)
            let id = stored.id ?? -1
            var previous: FeedCredentials?
            if let credentials {
                previous = try? await library.credentials(of: id)
                try await library.setCredentials(credentials, of: id)
            }
            let result = await update(stored, trackIDs: trackIDs)
            if case .failed(.feed(let error)) = result.status, error.code == .unauthorized, credentials != nil {
                try? await library.setCredentials(previous, of: id)
            }
            return (try await library.podcast(id) ?? stored, false, result)
        }
        var result = UpdateResult(podcastID: -1, title: title, status: .unchanged)
        let spool: SpooledFeed
        do throws(SpooledFeed.SpoolError) {
            spool = try SpooledFeed(in: URL(fileURLWithPath: library.path).deletingLastPathComponent())
        } catch {
            result.status = .failed(.library(Self.spoolFailure(error, library: library.path)))
            return (nil, true, result)
        }
        let firstRead: FirstRead
        do throws(FeedError) {
            firstRead = try await client.fetchFirstRead(feedURL, credentials: credentials, spool: spool)
        } catch {
            if let refused = spool.writeFailure {
                result.status = .failed(.library(Self.spoolFailure(refused, library: library.path)))
            } else {
                result.status = Task.isCancelled ? .interrupted : .failed(.feed(error))
            }
            return (nil, true, result)
        }
        let read: @Sendable (_ store: ([FeedItem]) throws -> Void) throws -> Feed
        let validators: (etag: String?, lastModified: String?)
        let movedTo: @Sendable (Feed) -> URL?
        // The spooled page's next page, and what went wrong reading it.
        let spooled = SpooledRead()
        switch firstRead {
        case .parsed(let feed, let etag, let lastModified, let moved):
            (read, validators, movedTo) = (Library.reading(feed), (etag, lastModified), { _ in moved })
        case .spooled(let base, let etag, let lastModified, let movedHere):
            read = { store in
                var refused: (any Error)?
                do throws(FeedParseError) {
                    let feed = try spool.parse(url: base) { items in
                        do {
                            try store(items)
                            return true
                        } catch {
                            refused = error
                            return false
                        }
                    }
                    spooled.nextPage.withLock { $0 = feed.nextPage.map { ($0, base) } }
                    return feed
                } catch {
                    if let refused { throw refused }
                    spooled.failure.withLock { $0 = .invalidFeed(url: base, detail: error.description) }
                    throw error
                }
            }
            validators = (etag, lastModified)
            movedTo = { FeedClient.movedTo($0, from: feedURL, movedHere: movedHere) }
        case .gone:
            // No feed to subscribe to: refused as a 404 is.
            result.status = .failed(.feed(.httpStatus(410, url: feedURL)))
            return (nil, true, result)
        case .notModified:
            // To a request that named no validators: no feed came either.
            result.status = .failed(.feed(.httpStatus(304, url: feedURL)))
            return (nil, true, result)
        }
        if Task.isCancelled {
            result.status = .interrupted
            return (nil, true, result)
        }
        do throws(LibraryError) {
            let (podcast, created, arrived) = try await library.subscribe(
                feedURL: feedURL,
                title: title,
                itunesID: itunesID,
                credentials: credentials,
                reading: read,
                validators: validators,
                movedTo: movedTo,
                trackIDs: trackIDs
            )
            result.podcastID = podcast.id ?? -1
            result.title = podcast.title
            result.added = arrived
            result.status = .updated(newEpisodes: 0)
            // A paged feed's later pages (RFC 5005), stored as an update stores
            // what it reads: after the first page's commit, none of them new.
            if created, let (next, first) = spooled.nextPage.withLock({ $0 }), let id = podcast.id {
                result.added += await storePages(
                    from: next,
                    after: first,
                    of: id,
                    credentials: credentials,
                    trackIDs: trackIDs
                )
            }
            return (podcast, created, result)
        } catch {
            if let failure = spooled.failure.withLock({ $0 }) {
                result.status = .failed(.feed(failure))
            } else {
                // Cancelled: the transaction was rolled back.
                result.status = Task.isCancelled ? .interrupted : .failed(.library(error))
            }
            return (nil, true, result)
        }
    }

    /// The spool could not be made or written: the library's disk (full, or not
    /// writable), said as the library's failure.
    static func spoolFailure(_ error: SpooledFeed.SpoolError, library path: String) -> LibraryError {
        error.diskFull ? .diskFull("write to", path: path) : LibraryError("write to", path: path, error)
    }

    /// Fetches the pages from `next` on (not `first` again) and stores their
    /// items in batches, none of them new; returns how many arrived. A page that
    /// fails ends it, as a paged feed's read does.
    private func storePages(
        from next: URL,
        after first: URL,
        of podcastID: Int64,
        credentials: FeedCredentials?,
        trackIDs: [String: Int64]
    ) async -> Int {
        guard next != first else { return 0 }
        let arrived = Mutex(0)
        let library = self.library
        let sink: FeedItemSink = { items in
            guard let count = try? library.storeItems(items, podcastID: podcastID, markNew: false, trackIDs: trackIDs)
            else { return false }
            arrived.withLock { $0 += count }
            return true
        }
        _ = try? await client.fetch(next, etag: nil, lastModified: nil, credentials: credentials, sink: sink)
        return arrived.withLock { $0 }
    }
}

/// What reading a spooled first page found, shared with the transaction's thread.
private final class SpooledRead: Sendable {
    /// The next page, and the URL of the page that named it.
    let nextPage = Mutex<(URL, URL)?>(nil)
    /// The page was no feed: the feed's failure, not the library's.
    let failure = Mutex<FeedError?>(nil)
}
