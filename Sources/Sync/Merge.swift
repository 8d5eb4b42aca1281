import Foundation

/// An episode of the library as the merge sees it: how to recognise it in another
/// device's actions, and its play state.
public struct LocalEpisode: Sendable, Equatable {
    public let id: Int64
    public let guid: String?
    /// Its enclosure URL, and the URL it redirected to when that is known.
    public var urls: [String] { [url, redirected].compactMap(\.self) }
    /// Its subscription's feed URL.
    public let feed: String?
    public var state: PlayState
    /// ``urls`` kept apart: an array of one for each of 20,000 episodes is 20,000
    /// allocations more at a first sync's peak.
    private let url: String?
    private let redirected: String?

    public init(id: Int64, guid: String?, urls: [String], feed: String? = nil, state: PlayState) {
        self.id = id
        self.guid = guid
        self.url = urls.first
        self.redirected = urls.dropFirst().first
        self.feed = feed
        self.state = state
    }

    /// An episode known by one enclosure URL.
    public init(id: Int64, guid: String?, url: String, feed: String? = nil, state: PlayState) {
        self.id = id
        self.guid = guid
        self.url = url
        self.redirected = nil
        self.feed = feed
        self.state = state
    }

    /// Calls `body` with each of ``urls``, without making the array.
    func forEachURL(_ body: (String) -> Void) {
        if let url { body(url) }
        if let redirected { body(redirected) }
    }
}

/// Where an episode was left and whether it was played, with when that was so.
public struct PlayState: Sendable, Equatable {
    /// Seconds from the start.
    public var position: Int
    public var played: Bool
    /// When this state was set, here or on the device it came from; nil: never.
    public var changed: Date?

    public init(position: Int = 0, played: Bool = false, changed: Date? = nil) {
        self.position = position
        self.played = played
        self.changed = changed
    }
}

/// Merges other devices' episode actions into local play state. Pure: no I/O, the
/// same input gives the same answer, and merging an action twice changes nothing
/// the second time (a server's `since` returns the boundary action again).
public enum SyncMerge {
    /// How near the end a position counts as played, in seconds.
    public static let playedMargin = 5

    public struct Outcome: Sendable, Equatable {
        /// The new state of each episode an action changed.
        public var changed: [Int64: PlayState] = [:]
        /// Actions naming an episode no subscription has.
        public var unmatched = 0
        /// Actions that matched but changed nothing: older than what is here,
        /// already merged, or with nothing to say (a `play` without a position).
        public var unchanged = 0
    }

    /// The newest action wins, one episode at a time: a `play` moves the position
    /// (played at `total` − 5 s or later), `new` marks it unplayed from the start.
    /// An action no newer than the local state (a newer local position, or the
    /// same action again) is not applied. `download` and `delete` say what another
    /// device holds and change nothing here.
    ///
    /// An action names its podcast's feed URL: it is matched among that
    /// subscription's episodes first (by GUID, then URL, then where tracking
    /// redirects lead), so that two subscriptions sharing GUIDs (one show under two
    /// feed URLs, a free and a premium feed) never swap play state. Only an action
    /// whose feed is no subscription here (a feed that moved) is matched across all.
    ///
    /// Only what the actions can match is indexed: the subscriptions they name,
    /// and all episodes only when one names a feed that is no subscription here.
    /// Indexing every episode twice (and keeping a copy of every state by id
    /// beside it) took the heap of a first sync of 20,000 to 34 MiB; 30 MiB now.
    public static func merge(_ actions: [EpisodeAction], into episodes: [LocalEpisode]) -> Outcome {
        let named = Set(actions.map(\.podcast))
        var byFeed: [String: Matcher] = [:]
        for (index, episode) in episodes.enumerated() {
            if let feed = episode.feed, named.contains(feed) {
                byFeed[feed, default: Matcher()].add(episode, at: index)
            }
        }
        var everywhere: Matcher?
        if named.contains(where: { byFeed[$0] == nil }) {
            var all = Matcher()
            for (index, episode) in episodes.enumerated() { all.add(episode, at: index) }
            everywhere = all
        }
        var states = episodes.map(\.state)
        var outcome = Outcome()
        // Oldest first, so that the newest of several lands last; ties keep the
        // server's order.
        let ordered = actions.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }
        for action in ordered.map(\.element) {
            guard let index = (byFeed[action.podcast] ?? everywhere)?.match(action, in: episodes) else {
                outcome.unmatched += 1
                continue
            }
            guard let next = apply(action, to: states[index]) else {
                outcome.unchanged += 1
                continue
            }
            states[index] = next
            outcome.changed[episodes[index].id] = next
        }
        return outcome
    }

    /// Episodes by what an action may name them by: GUID, enclosure URL, and the
    /// URL tracking redirects lead to (``TrackingPrefix``), tried in that order;
    /// the first episode listed wins a tie.
    ///
    /// The last is indexed by the hash of the key, not the key (a string of its
    /// own for each episode, 20,000 at a first sync's peak), and a match by it is
    /// checked against the episode's own key: a collision of 64-bit hashes could
    /// only miss a match, never make a wrong one.
    struct Matcher {
        private var byGUID: [String: Int] = [:]
        private var byURL: [String: Int] = [:]
        private var byTarget: [Int: Int] = [:]

        mutating func add(_ episode: LocalEpisode, at index: Int) {
            if let guid = episode.guid { byGUID[guid] = byGUID[guid] ?? index }
            episode.forEachURL { url in
                byURL[url] = byURL[url] ?? index
                let target = TrackingPrefix.key(url).hashValue
                byTarget[target] = byTarget[target] ?? index
            }
        }

        func match(_ action: EpisodeAction, in episodes: [LocalEpisode]) -> Int? {
            if let index = action.guid.flatMap({ byGUID[$0] }) ?? byURL[action.episode] { return index }
            let target = TrackingPrefix.key(action.episode)
            guard let index = byTarget[target.hashValue] else { return nil }
            var same = false
            episodes[index].forEachURL { url in same = same || TrackingPrefix.key(url) == target }
            return same ? index : nil
        }
    }

    /// The state after `action`, or nil when it changes nothing.
    static func apply(_ action: EpisodeAction, to state: PlayState) -> PlayState? {
        if let changed = state.changed, action.timestamp <= changed { return nil }
        switch action.kind {
        case .play:
            guard let position = action.position else { return nil }
            let played = action.total.map { position >= $0 - playedMargin } ?? false
            return PlayState(position: position, played: played, changed: action.timestamp)
        case .new:
            return PlayState(position: 0, played: false, changed: action.timestamp)
        case .download, .delete:
            return nil
        }
    }
}
