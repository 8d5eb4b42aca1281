import FeedKit
import Foundation
import Testing

@testable import Library

/// The listening settings, the history of plays, the bookmarks and what the
/// statistics add up to.
@Suite("Listening history")
struct ListeningHistoryTests {
    @Test func listeningSettingsAreCheckedAndNamedWithTheirRange() throws {
        #expect(try Setting.skipIntro.normalize("1m30s") == "1m30s")
        #expect(try Setting.skipIntro.normalize("90") == "1m30s")
        #expect(try Setting.skipOutro.normalize("1:05") == "1m5s")
        #expect(try Setting.volumeBoost.normalize("6dB") == "6")
        #expect(try Setting.skipSilence.normalize("yes") == "on")
        #expect(try Setting.skipChapters.normalize("Sponsor,  ad") == "Sponsor ad")
        for (setting, bad, words) in [
            (Setting.skipIntro, "-5s", "from 0s to 30m"), (.skipIntro, "31m", "from 0s to 30m"),
            (.volumeBoost, "99", "from 0 to 12"), (.loudness, "loud", "on or off"), (.skipChapters, " ", "words"),
        ] {
            #expect {
                try setting.normalize(bad)
            } throws: { error in
                "\(error)".contains(words) && "\(error)".hasPrefix(setting.name)
            }
        }
        #expect(ListeningTime.seconds("1h30m") == 5400)
        #expect(ListeningTime.seconds("45s") == 45)
        #expect(ListeningTime.seconds("2x") == nil)
        #expect(ListeningTime.seconds("1e300") == nil)
        #expect(ListeningTime.text(5400) == "1h30m")
    }

    @Test func aPodcastsOwnSettingsWinOverTheLibrarys() {
        let library = Settings(values: [.skipSilence: "on", .skipIntro: "30s", .skipChapters: "sponsor"])
        let plain = library.listening()
        #expect(plain == ListeningSettings(skipSilence: true, skipIntro: 30, skipChapters: ["sponsor"]))
        let own = library.listening(overriddenBy: [.skipSilence: "off", .skipOutro: "1m", .volumeBoost: "3"])
        #expect(
            own
                == ListeningSettings(
                    skipSilence: false,
                    volumeBoost: 3,
                    skipIntro: 30,
                    skipOutro: 60,
                    skipChapters: ["sponsor"]
                )
        )
    }

    /// Sums checked by hand: three plays of two podcasts in two months.
    @Test func statisticsAddUpPlaysSpeedsAndSilence() {
        func play(
            _ podcast: String,
            _ day: String,
            heard: Double,
            wall: Double,
            speed: Double,
            silence: Double,
            finished: Bool
        )
            -> PlaybackRecord
        {
            PlaybackRecord(
                episode: EpisodeIdentity(
                    episodeID: nil,
                    podcastTitle: podcast,
                    episodeTitle: "e",
                    feedURL: "f",
                    guid: "g"
                ),
                started: ISO8601DateFormatter().date(from: day + "T12:00:00Z")!,
                fromSeconds: 0,
                toSeconds: heard,
                mediaSeconds: heard,
                wallSeconds: wall,
                speed: speed,
                silenceSkipped: silence,
                finished: finished
            )
        }
        let records = [
            // 3600 s heard at 2×, 600 s of it silence cut: 3000 s at 2× = 1500 s.
            play("A", "2026-10-30", heard: 3600, wall: 1500, speed: 2, silence: 600, finished: true),
            // 1200 s at 1.5×: 800 s, 400 saved by speed.
            play("B", "2026-11-02", heard: 1200, wall: 800, speed: 1.5, silence: 0, finished: false),
            // 600 s at 1×, 100 s of silence cut: 500 s.
            play("A", "2026-11-03", heard: 600, wall: 500, speed: 1, silence: 100, finished: true),
        ]
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let stats = ListeningStats(records, by: .month, calendar: utc)
        #expect(stats.totals.listened == 2800)
        #expect(stats.totals.heard == 5400)
        #expect(stats.totals.plays == 3 && stats.totals.finished == 2)
        // Speed: 3000 - 1500, 1200 - 800, 500 - 500.
        #expect(stats.totals.savedBySpeed == 1500 + 400)
        // Silence: 600 at 2× is 300 s; 100 at 1×.
        #expect(stats.totals.savedBySilence == 300 + 100)
        #expect(stats.groups.map(\.name) == ["2026-10", "2026-11"])
        #expect(stats.groups.map(\.totals.listened) == [1500, 1300])
        #expect(stats.topPodcasts.map(\.name) == ["A", "B"])
        #expect(ListeningStats(records, by: .podcast).groups.map(\.totals.plays) == [2, 1])
    }

    @Test func historyAndBookmarksOutliveAnUnsubscribe() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-history-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let podcast = try #require(
            try await library.subscribe(feedURL: URL(string: "https://feeds.example/h.xml")!, title: "H").podcast.id
        )
        var feed = Feed()
        feed.title = "H"
        feed.items = [
            FeedItem(
                guid: "h1",
                title: "First",
                published: Date(timeIntervalSince1970: 1_790_000_000),
                enclosure: Enclosure(url: URL(string: "https://media.example/h1.mp3")!, type: nil)
            )
        ]
        _ = try await library.store(feed, for: podcast, validators: (nil, nil))
        let episode = try #require(try await library.episodeIDs(of: podcast).first)
        try await library.setPodcastSetting(podcast, .skipIntro, to: "45s")
        #expect(try await library.podcastSettings(podcast) == [.skipIntro: "45s"])
        let identity = try #require(try await library.identity(ofEpisode: episode))
        #expect(identity.guid == "h1" && identity.feedURL == "https://feeds.example/h.xml")
        try await library.record(
            PlaybackRecord(
                episode: identity,
                started: Date(),
                fromSeconds: 0,
                toSeconds: 60,
                mediaSeconds: 60,
                wallSeconds: 30,
                speed: 2,
                silenceSkipped: 0,
                finished: false
            )
        )
        let mark = try #require(try await library.addBookmark(episodeID: episode, at: 42, note: "here"))
        #expect(mark.episodeRef == EpisodeRef(podcast: podcast, episode: episode))
        #expect(try await library.playbacks(since: Date().addingTimeInterval(60)).isEmpty)
        try await library.unsubscribe(podcast)
        // Its own settings go with it; the history and bookmarks stay, by feed and GUID.
        #expect(try await library.podcastSettings(podcast).isEmpty)
        let plays = try await library.playbacks()
        #expect(plays.count == 1 && plays[0].episodeID == nil && plays[0].guid == "h1")
        let marks = try await library.bookmarks()
        #expect(marks.count == 1 && marks[0].episodeRef == nil && marks[0].note == "here")
        #expect(try await library.removeBookmark(marks[0].id ?? 0))
        #expect(try await library.bookmarks().isEmpty)
    }
}
