import Foundation
import Testing

@testable import Sync

@Suite("Merging other devices' actions")
struct MergeTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Int) -> Date { start.addingTimeInterval(TimeInterval(seconds)) }

    func play(_ episode: String, guid: String? = nil, at seconds: Int, position: Int?, total: Int? = 600)
        -> EpisodeAction
    {
        var action = EpisodeAction(.play, podcast: "http://f/rss", episode: episode, at: at(seconds))
        (action.guid, action.position, action.total) = (guid, position, total)
        return action
    }

    var library: [LocalEpisode] {
        [
            LocalEpisode(id: 1, guid: "g1", urls: ["http://f/1.mp3"], state: PlayState()),
            LocalEpisode(
                id: 2,
                guid: "g2",
                urls: ["http://f/2.mp3", "http://cdn/2.mp3"],
                state: PlayState(position: 100, changed: at(50))
            ),
        ]
    }

    /// By GUID first, then by the enclosure URL or the URL it redirected to.
    @Test func episodesMatchByGUIDThenByURL() {
        let outcome = SyncMerge.merge(
            [
                play("http://elsewhere/renamed.mp3", guid: "g1", at: 10, position: 30),
                play("http://cdn/2.mp3", at: 60, position: 200),
                play("http://f/unknown.mp3", guid: "g9", at: 10, position: 5),
            ],
            into: library
        )
        #expect(outcome.changed[1] == PlayState(position: 30, played: false, changed: at(10)))
        #expect(outcome.changed[2] == PlayState(position: 200, played: false, changed: at(60)))
        #expect(outcome.unmatched == 1)
    }

    /// One show under two feed URLs (a free and a premium feed) shares GUIDs: an
    /// action lands on the episode of the feed it names, never on its twin; an
    /// action of a feed no subscription has (it moved) is matched across all.
    @Test func anActionLandsInTheSubscriptionItsFeedNames() {
        let twins = [
            LocalEpisode(
                id: 1,
                guid: "shared",
                urls: ["http://free/1.mp3"],
                feed: "http://free/rss",
                state: PlayState()
            ),
            LocalEpisode(
                id: 2,
                guid: "shared",
                urls: ["http://premium/1.mp3"],
                feed: "http://premium/rss",
                state: PlayState()
            ),
        ]
        var premium = EpisodeAction(.play, podcast: "http://premium/rss", episode: "http://premium/1.mp3", at: at(10))
        (premium.guid, premium.position, premium.total) = ("shared", 42, 600)
        let outcome = SyncMerge.merge([premium], into: twins)
        #expect(outcome.changed.keys.sorted() == [2])
        #expect(outcome.changed[2]?.position == 42)
        var free = premium
        (free.podcast, free.episode, free.timestamp) = ("http://free/rss", "http://free/1.mp3", at(20))
        #expect(SyncMerge.merge([free], into: twins).changed.keys.sorted() == [1])
        // A GUID the named feed does not have is no match, even where its twin has it.
        var stray = premium
        (stray.guid, stray.episode) = ("only-free", "http://premium/other.mp3")
        let strayTwins = [twins[0].renamed(guid: "only-free"), twins[1]]
        #expect(SyncMerge.merge([stray], into: strayTwins).unmatched == 1)
        // A feed that moved since: matched by GUID across all.
        var moved = premium
        moved.podcast = "http://old-premium/rss"
        moved.episode = "http://old-premium/1.mp3"
        #expect(SyncMerge.merge([moved], into: [twins[1]]).changed.keys.sorted() == [2])
        // Both in one merge: the named feed among its own episodes, the moved one
        // across all (by GUID, the first episode that has it).
        var movedFree = free
        (movedFree.podcast, movedFree.timestamp, movedFree.position) = ("http://old-free/rss", at(30), 7)
        let both = SyncMerge.merge([premium, movedFree], into: twins)
        #expect(both.changed[2]?.position == 42)
        #expect(both.changed[1]?.position == 7)
        #expect(both.unmatched == 0)
    }

    /// Tracking prefixes redirect to the real URL: a device that read the feed
    /// through them (or without) names the same episode.
    @Test func episodesMatchWhereTrackingRedirectsLead() {
        let tracked = [
            LocalEpisode(
                id: 7,
                guid: nil,
                urls: ["https://dts.podtrac.com/redirect.mp3/chtbl.com/track/A1B2/media.example/ep7.mp3"],
                state: PlayState()
            )
        ]
        let outcome = SyncMerge.merge(
            [play("http://media.example/ep7.mp3", at: 10, position: 42)],
            into: tracked
        )
        #expect(outcome.changed[7]?.position == 42)
        let plain = [LocalEpisode(id: 8, guid: nil, urls: ["https://cdn.example/a/8.mp3"], state: PlayState())]
        let back = SyncMerge.merge(
            [play("https://op3.dev/e,pg=abc/pdst.fm/e/cdn.example/a/8.mp3", at: 10, position: 9)],
            into: plain
        )
        #expect(back.changed[8]?.position == 9)
        #expect(SyncMerge.merge([play("https://cdn.example/a/9.mp3", at: 10, position: 9)], into: plain).unmatched == 1)
    }

    @Test(arguments: [
        ("https://dts.podtrac.com/redirect.m4a/www.example.com/a.m4a", "www.example.com/a.m4a"),
        ("http://chrt.fm/track/XYZ/traffic.megaphone.fm/B.mp3?updated=1", "traffic.megaphone.fm/B.mp3?updated=1"),
        ("https://pfx.vpixl.com/6qj4J/example.org/x.mp3", "example.org/x.mp3"),
        ("https://example.org/chtbl.com/track/x.mp3", "example.org/chtbl.com/track/x.mp3"),
        ("https://chtbl.com/track/ABC/", "chtbl.com/track/ABC/"),
    ])
    func trackingPrefixesComeOff(url: String, key: String) {
        #expect(TrackingPrefix.key(url) == key)
    }

    /// A newer local position is never moved back; of several actions the newest wins.
    @Test func theNewestWinsAndNewerLocalStateStays() {
        let outcome = SyncMerge.merge(
            [
                play("http://f/2.mp3", at: 40, position: 10),
                play("http://f/1.mp3", at: 30, position: 300),
                play("http://f/1.mp3", at: 20, position: 100),
            ],
            into: library
        )
        #expect(outcome.changed[2] == nil)
        #expect(outcome.changed[1]?.position == 300)
        #expect(outcome.unchanged == 1)
    }

    /// At total − 5 s or later the episode is played; `new` marks it unplayed.
    @Test func nearTheEndIsPlayedAndNewIsUnplayed() {
        var episodes = library
        let outcome = SyncMerge.merge([play("http://f/1.mp3", at: 10, position: 595, total: 600)], into: episodes)
        #expect(outcome.changed[1]?.played == true)
        episodes[0].state = outcome.changed[1]!
        let again = SyncMerge.merge(
            [EpisodeAction(.new, podcast: "p", episode: "http://f/1.mp3", at: at(20))],
            into: episodes
        )
        #expect(again.changed[1] == PlayState(position: 0, played: false, changed: at(20)))
        let short = SyncMerge.merge([play("http://f/1.mp3", at: 10, position: 594, total: 600)], into: library)
        #expect(short.changed[1]?.played == false)
    }

    /// The boundary action a server returns again changes nothing the second time.
    @Test func mergingTwiceChangesNothingMore() {
        let actions = [play("http://f/1.mp3", at: 10, position: 30), play("http://f/2.mp3", at: 70, position: 599)]
        let first = SyncMerge.merge(actions, into: library)
        let merged = library.map { episode in
            var episode = episode
            if let state = first.changed[episode.id] { episode.state = state }
            return episode
        }
        let second = SyncMerge.merge(actions, into: merged)
        #expect(first.changed.count == 2)
        #expect(second.changed.isEmpty && second.unchanged == 2)
    }

    /// Downloads and deletes elsewhere, and plays without a position, leave the
    /// state here as it is.
    @Test func actionsWithNothingToSayChangeNothing() {
        let outcome = SyncMerge.merge(
            [
                EpisodeAction(.download, podcast: "p", episode: "http://f/1.mp3", at: at(10)),
                EpisodeAction(.delete, podcast: "p", episode: "http://f/1.mp3", at: at(11)),
                play("http://f/1.mp3", at: 12, position: nil),
            ],
            into: library
        )
        #expect(outcome.changed.isEmpty && outcome.unchanged == 3)
    }
}

extension LocalEpisode {
    /// The same episode under another GUID.
    fileprivate func renamed(guid: String) -> LocalEpisode {
        LocalEpisode(id: id, guid: guid, urls: urls, feed: feed, state: state)
    }
}
