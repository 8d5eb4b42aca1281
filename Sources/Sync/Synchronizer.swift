import Foundation
import HTTPSupport
import Library
import WebBasics

/// What one sync did, for `sync`'s lines and `sync --json`.
public struct SyncReport: Sendable, Equatable {
    /// Episode actions uploaded, by kind.
    public var pushed: [EpisodeAction.Kind: Int] = [:]
    /// Episode actions downloaded, by kind (the boundary action and this device's
    /// own come back too; the merge leaves them be).
    public var pulled: [EpisodeAction.Kind: Int] = [:]
    /// Subscriptions made and removed here, uploaded.
    public var subscriptionsAdded = 0
    public var subscriptionsRemoved = 0
    /// Feeds subscribed and unsubscribed here because another device did.
    public var subscribed: [String] = []
    public var unsubscribed: [String] = []
    /// Stored feed URLs the server rewrote (`update_urls`).
    public var rewritten = 0
    /// Episodes whose position or played state a pulled action changed.
    public var episodesChanged = 0
    /// Pulled actions naming an episode no subscription has.
    public var unmatched = 0
    /// Pulled actions that could not be read, with their JSON path and why.
    public var skipped: [SkippedAction] = []
    /// Subscriptions other devices made that wait to be followed here: past the
    /// most one sync follows (``Synchronizer/maxFollows``), or failed and waiting
    /// for their next try.
    public var followsWaiting = 0
    /// The server had more full pages than one sync reads
    /// (``Synchronizer/maxPages``): the next sync goes on from where this one
    /// stopped.
    public var actionsLeft = false
    /// What failed without stopping the sync (a feed another device subscribed to
    /// that cannot be read), in words.
    public var problems: [String] = []

    public init() {}
}

/// What a sync asks of the shell for the subscriptions another device changed:
/// subscribing fetches the feed as `subscribe` does; unsubscribing keeps the files.
public struct SubscriptionKeeper: Sendable {
    /// Subscribes to the feed; nil on success, else why not, in words.
    public var subscribe: @Sendable (URL) async -> String?
    /// Ends the subscription to the feed with this stored URL.
    public var unsubscribe: @Sendable (String) async -> String?

    public init(
        subscribe: @escaping @Sendable (URL) async -> String?,
        unsubscribe: @escaping @Sendable (String) async -> String?
    ) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }
}

/// One sync of the library with an account: push subscription changes, pull the
/// server's, push the outbox's episode actions a page a request, pull the
/// server's since the last sync and merge them.
///
/// Every step leaves the library consistent where it stops: an outbox row leaves
/// only after the request carrying it was answered with success, and the pulled
/// actions are merged and the cursor moved in one transaction. Killed or offline
/// at any point, the next sync sends what was not acknowledged and asks again
/// from where the last merge ended.
public struct Synchronizer: Sendable {
    public let client: SyncClient
    public let library: Library

    /// How many pages of actions one sync reads at most.
    let pageBound: Int
    /// How many subscriptions of other devices one sync follows at most.
    let followBound: Int
    /// How long to wait for another process's sync of the library.
    let lockWait: Duration

    public init(
        client: SyncClient,
        library: Library,
        maxPages: Int = Synchronizer.maxPages,
        maxFollows: Int = Synchronizer.maxFollows,
        lockWait: Duration = Synchronizer.lockWait
    ) {
        pageBound = maxPages
        followBound = maxFollows
        self.lockWait = lockWait
        self.client = client
        self.library = library
    }

    /// The most subscriptions of other devices one sync follows (each reads its
    /// feed); the rest are remembered and followed by the next syncs.
    public static let maxFollows = 50

    /// How long a sync waits for another process's sync of the library.
    public static let lockWait: Duration = .seconds(120)

    public func sync(keeper: SubscriptionKeeper, now: @Sendable () -> Date = Date.init) async throws(SyncError)
        -> SyncReport
    {
        // Held to the end: another process's sync of this library waits for it.
        let lock = try await SyncLock.acquire(SyncLock.path(forLibrary: library.path), within: lockWait)
        defer { withExtendedLifetime(lock) {} }
        var report = SyncReport()
        let account = client.account
        var cursor =
            try await stored { () async throws(LibraryError) in try await library.syncCursor(account.key) }
            ?? SyncCursor(account: account.key)
        try await pushSubscriptions(firstSync: cursor.lastSync == nil, &report)
        let start = now()
        let repullFrom = try await pullSubscriptions(&cursor, keeper: keeper, at: start, &report)
        try await stored { () async throws(LibraryError) in try await library.saveSyncCursor(cursor) }
        try await pushActions(&report)
        try await pullActions(cursor, from: repullFrom, at: start, &report)
        return report
    }

    /// Sends the subscriptions made and removed here; the first sync with an
    /// account sends every subscription.
    private func pushSubscriptions(firstSync: Bool, _ report: inout SyncReport) async throws(SyncError) {
        let pending = try await stored { () async throws(LibraryError) in try await library.pendingSubscriptionChanges()
        }
        var add = Set(pending.filter(\.subscribed).map(\.feedURL))
        let remove = Set(pending.filter { !$0.subscribed }.map(\.feedURL))
        if firstSync {
            add.formUnion(
                try await stored { () async throws(LibraryError) in try await library.subscriptions() }.map(\.feedURL)
            )
        }
        guard !add.isEmpty || !remove.isEmpty else { return }
        let reply = try await client.uploadSubscriptions(add: add.sorted(), remove: remove.subtracting(add).sorted())
        try await stored { () async throws(LibraryError) in try await library.acknowledgeSubscriptionChanges(pending) }
        for (old, new) in reply.rewritten {
            try await stored { () async throws(LibraryError) in try await library.rewriteFeedURL(old, to: new) }
            report.rewritten += 1
        }
        report.subscriptionsAdded = add.count
        report.subscriptionsRemoved = remove.subtracting(add).count
    }

    /// Subscribes to what other devices subscribed to and unsubscribes from what
    /// they removed; the changes this makes here are not sent back.
    ///
    /// The server's changes are read once: the feeds to follow are remembered in
    /// the library (``Library/PendingFollow``) and followed up to ``followBound`` a
    /// sync, those that fail tried again later (an hour, doubling, at most a
    /// day), so neither a flood of subscriptions nor one unreadable feed holds
    /// every sync. An address no user would type is said once and never followed.
    /// Returns the actions cursor to pull from again when a feed followed late had
    /// actions pulled while it waited (they named no subscription then).
    private func pullSubscriptions(
        _ cursor: inout SyncCursor,
        keeper: SubscriptionKeeper,
        at now: Date,
        _ report: inout SyncReport
    ) async throws(SyncError) -> Int64? {
        let delta = try await client.subscriptions(since: cursor.subscriptionsSince)
        let local = Set(
            try await stored { () async throws(LibraryError) in try await library.subscriptions() }.map(\.feedURL)
        )
        var remember: [String] = []
        for feed in delta.add where !local.contains(feed) && !delta.remove.contains(feed) {
            if let refusal = FeedAddress.refusal(feed) {
                report.problems.append("not following \(URL.redacted(feed)): \(refusal)")
            } else {
                remember.append(feed)
            }
        }
        let since = cursor.actionsSince
        try await stored { () async throws(LibraryError) in
            try await library.rememberFollows(remember, actionsSince: since)
        }
        var applied: [String] = []
        var unsubscribed = true
        let removed = delta.remove.filter { !delta.add.contains($0) }
        for feed in removed where local.contains(feed) {
            if let problem = await keeper.unsubscribe(feed) {
                report.problems.append("cannot unsubscribe from \(URL.redacted(feed)): \(problem)")
                unsubscribed = false
            } else {
                report.unsubscribed.append(URL.redacted(feed))
                applied.append(feed)
            }
        }
        try await stored { () async throws(LibraryError) in try await library.forgetFollows(removed) }
        // Everything the server said is kept here now, but an unsubscribe that
        // failed is asked for again.
        if unsubscribed { cursor.subscriptionsSince = delta.timestamp }

        let (due, remembered) = try await stored { () async throws(LibraryError) in
            try await library.followsDue(at: now, limit: followBound)
        }
        var followed: [String] = []
        var repullFrom: Int64?
        for follow in due {
            guard let url = URL(string: follow.feedURL) else { continue }
            if let problem = await keeper.subscribe(url) {
                let tries = follow.attempts + 1
                report.problems.append(
                    "cannot subscribe to \(URL.redacted(follow.feedURL)): \(problem)"
                        + (tries > 1 ? " (\(tries) tries; the next in \(Self.wait(after: tries)))" : "")
                )
                try await stored { () async throws(LibraryError) in
                    try await library.recordFollowFailure(follow.feedURL, problem: problem, at: now)
                }
            } else {
                report.subscribed.append(URL.redacted(follow.feedURL))
                followed.append(follow.feedURL)
                if follow.actionsSince < cursor.actionsSince {
                    repullFrom = min(repullFrom ?? follow.actionsSince, follow.actionsSince)
                }
            }
        }
        try await stored { () async throws(LibraryError) in try await library.forgetFollows(followed) }
        applied += followed
        try await stored { () async throws(LibraryError) in try await library.discardSubscriptionChanges(applied) }
        report.followsWaiting = remembered - followed.count
        return repullFrom
    }

    /// `1 h`, `2 h`, … `1 day`: the wait after `tries` failed tries.
    private static func wait(after tries: Int) -> String {
        let follow = PendingFollow(
            feedURL: "",
            actionsSince: 0,
            attempts: tries,
            lastTried: Date(timeIntervalSince1970: 0)
        )
        let hours = Int(follow.due.timeIntervalSince1970 / 3600)
        return hours >= 24 ? "1 day" : "\(hours) h"
    }

    /// Sends the outbox a page a request, oldest first; each page leaves the outbox
    /// when the server answered it with success.
    private func pushActions(_ report: inout SyncReport) async throws(SyncError) {
        while true {
            let rows = try await stored { () async throws(LibraryError) in
                try await library.pendingActions(limit: SyncClient.pageSize)
            }
            guard !rows.isEmpty else { return }
            try await client.upload(rows.map { Self.action($0, device: client.account.device) })
            try await stored { () async throws(LibraryError) in
                try await library.acknowledgeActions(rows.compactMap(\.id))
            }
            for row in rows {
                if let kind = EpisodeAction.Kind(rawValue: row.kind.rawValue) { report.pushed[kind, default: 0] += 1 }
            }
            if rows.count < SyncClient.pageSize { return }
        }
    }

    /// The most pages of actions one sync reads (a thousand actions each); what
    /// is left waits for the next sync, which goes on from where this one stopped.
    public static let maxPages = 50

    /// Reads the server's actions since the last merge, a page at a time until a
    /// short page, and merges them all in one transaction with the new cursor.
    private func pullActions(_ cursor: SyncCursor, from repullFrom: Int64?, at now: Date, _ report: inout SyncReport)
        async throws(SyncError)
    {
        var since = min(repullFrom ?? cursor.actionsSince, cursor.actionsSince)
        var actions: [EpisodeAction] = []
        var pages = 0
        while true {
            let page = try await client.actions(since: since)
            pages += 1
            actions += page.actions
            report.skipped += page.skipped
            let advanced = page.timestamp > since
            since = max(since, page.timestamp)
            // A full page may have more behind it; one whose timestamp did not move
            // would only be answered again.
            if page.actions.count + page.skipped.count < SyncClient.pageSize || !advanced { break }
            // A server whose full pages never end (or keep moving their timestamp)
            // holds one sync, and its memory, no longer than this.
            if pages == pageBound {
                report.actionsLeft = true
                break
            }
        }
        for action in actions { report.pulled[action.kind, default: 0] += 1 }
        var next = cursor
        next.actionsSince = max(since, cursor.actionsSince)
        next.lastSync = now
        let outcome = try await stored { () async throws(LibraryError) in
            try await library.mergePlayStates(cursor: next) { [actions] states in Self.merge(actions, into: states) }
        }
        report.episodesChanged = outcome.changed.count
        report.unmatched = outcome.unmatched
    }

    /// Runs a library call, its failure a sync's.
    private func stored<T>(_ call: () async throws(LibraryError) -> T) async throws(SyncError) -> T {
        do {
            return try await call()
        } catch {
            throw .library(error)
        }
    }

    /// The pure merge over the library's play states: played episodes start from
    /// the beginning next time, as `mark played` leaves them.
    static func merge(_ actions: [EpisodeAction], into states: [EpisodePlayState]) -> (
        states: [Int64: EpisodePlayState], result: SyncMerge.Outcome
    ) {
        let locals = states.map { state in
            LocalEpisode(
                id: state.id,
                guid: state.guid,
                url: state.audioURL,
                feed: state.feedURL,
                state: PlayState(position: Int(state.position), played: state.played, changed: state.changed)
            )
        }
        let outcome = SyncMerge.merge(actions, into: locals)
        // Where each changed episode is in `states` (ids to positions, not copies
        // of every state).
        let changedIDs = Set(outcome.changed.keys)
        var positions: [Int64: Int] = [:]
        for (index, state) in states.enumerated() where changedIDs.contains(state.id) { positions[state.id] = index }
        var changed: [Int64: EpisodePlayState] = [:]
        for (id, state) in outcome.changed {
            guard let index = positions[id] else { continue }
            var episode = states[index]
            episode.played = state.played
            episode.position = state.played ? 0 : Double(state.position)
            episode.changed = state.changed
            changed[id] = episode
        }
        return (changed, outcome)
    }

    /// An outbox row as the API takes it.
    static func action(_ row: OutboxAction, device: String) -> EpisodeAction {
        var action = EpisodeAction(
            EpisodeAction.Kind(rawValue: row.kind.rawValue) ?? .play,
            podcast: row.podcastURL,
            episode: row.episodeURL,
            at: row.at
        )
        action.guid = row.guid
        action.device = device
        action.started = row.started
        action.position = row.position
        action.total = row.total
        return action
    }
}
