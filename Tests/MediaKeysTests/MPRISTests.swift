import Playback
import Testing

@testable import MediaKeys

/// The MPRIS interface over a fake player: the properties a client reads, what
/// its calls ask of the playback, and the changes signalled.
struct MPRISTests {
    static let item = NowPlayingItem(
        id: "feed-1a2b",
        title: "Episode: the one",
        podcast: "A Show",
        artist: "Its Host",
        artwork: "/cache/images/art.jpg",
        length: 3600
    )

    static func playing(_ position: Double = 90, paused: Bool = false, chapters: [Double] = [0, 60, 120])
        -> MPRISSnapshot
    {
        MPRISSnapshot(
            item: item,
            state: PlayerState(
                paused: paused,
                position: position,
                duration: 3599.5,
                speed: 1.5,
                volume: 80,
                chapterStarts: chapters
            )
        )
    }

    @Test func propertiesShowTheEpisodeAndThePlayer() {
        let properties = MPRIS.playerProperties(Self.playing())
        #expect(properties["PlaybackStatus"] == .string("Playing"))
        #expect(properties["Rate"] == .double(1.5))
        #expect(properties["Volume"] == .double(0.8))
        #expect(properties["Position"] == .int64(90_000_000))
        #expect(properties["CanGoNext"] == .bool(true))
        #expect(properties["CanSeek"] == .bool(true))
        #expect(properties["CanControl"] == .bool(true))
        guard case .dictionary(let metadata)? = properties["Metadata"] else {
            Issue.record("no Metadata")
            return
        }
        #expect(metadata["mpris:trackid"] == .objectPath("/org/feedsh/episode/feed_2D1a2b"))
        // mpv's duration, once known, over the feed's.
        #expect(metadata["mpris:length"] == .int64(3_599_500_000))
        #expect(metadata["xesam:title"] == .string("Episode: the one"))
        #expect(metadata["xesam:album"] == .string("A Show"))
        #expect(metadata["xesam:artist"] == .strings(["Its Host"]))
        #expect(metadata["mpris:artUrl"] == .string("file:///cache/images/art.jpg"))
        #expect(MPRIS.playerProperties(Self.playing(paused: true))["PlaybackStatus"] == .string("Paused"))
    }

    @Test func betweenEpisodesItIsStopped() {
        let properties = MPRIS.playerProperties(MPRISSnapshot())
        #expect(properties["PlaybackStatus"] == .string("Stopped"))
        #expect(properties["CanPlay"] == .bool(false))
        #expect(properties["CanGoNext"] == .bool(false))
        #expect(
            properties["Metadata"]
                == .dictionary(["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")])
        )
    }

    /// A feed's title with a terminal's escape sequence and a line break
    /// reaches playerctl as one plain line.
    @Test func theFeedsWordsAreMadeSafe() {
        var item = Self.item
        item.title = "Ep\u{1B}]0;owned\u{07} one\nand two"
        item.artist = "\u{1B}[31mHost"
        let metadata = MPRIS.metadata(MPRISSnapshot(item: item))
        guard case .string(let title)? = metadata["xesam:title"], case .strings(let artists)? = metadata["xesam:artist"]
        else {
            Issue.record("no title or artist")
            return
        }
        #expect(!title.contains("\u{1B}") && !title.contains("\u{07}") && !title.contains("\n"), "\(title)")
        #expect(title.hasPrefix("Ep") && title.hasSuffix("and two"), "\(title)")
        #expect(artists.allSatisfy { !$0.contains("\u{1B}") }, "\(artists)")
    }

    @Test func trackIDsAreObjectPathsForAnyID() {
        let odd = NowPlayingItem(id: "é/ x", title: "", podcast: "")
        #expect(odd.trackID == "/org/feedsh/episode/_C3_A9_2F_20x")
    }

    @Test func nextIsTheNextChapterOrTheRunsNextEpisode() {
        var lastChapter = Self.playing(130).state!
        #expect(lastChapter.nextChapter == nil)
        #expect(MPRIS.playerProperties(MPRISSnapshot(item: Self.item, state: lastChapter))["CanGoNext"] == .bool(false))
        lastChapter.nextEpisode = true
        #expect(MPRIS.playerProperties(MPRISSnapshot(item: Self.item, state: lastChapter))["CanGoNext"] == .bool(true))
        #expect(Self.playing(59).state?.nextChapter == 60)
        #expect(Self.playing(60.2).state?.nextChapter == 120)
        // A seek to 60 that mpv reads as 59.8 is at that chapter: Next goes on.
        #expect(Self.playing(59.8).state?.nextChapter == 120)
    }

    @Test func previousIsTheChapterStartOrWithinItsFirstSecondsTheOneBefore() {
        #expect(Self.playing(90).state?.previousPlace == 60)
        #expect(Self.playing(62).state?.previousPlace == 0)
        #expect(Self.playing(1).state?.previousPlace == 0)
        #expect(Self.playing(59.8).state?.previousPlace == 0)
        #expect(Self.playing(500, chapters: []).state?.previousPlace == 0)
        // A file whose first chapter starts late still has its start before it.
        #expect(Self.playing(31, chapters: [30]).state?.previousPlace == 0)
    }

    @Test func callsBecomeCommands() {
        let snapshot = Self.playing()
        func command(_ member: String, _ arguments: [DBusValue] = []) -> RemoteCommand? {
            MPRIS.handle(MPRISCall(MPRIS.player, member, arguments), at: snapshot).command
        }
        #expect(command("PlayPause") == .playPause)
        #expect(command("Play") == .play)
        #expect(command("Pause") == .pause)
        #expect(command("Stop") == .stop)
        #expect(command("Next") == .next)
        #expect(command("Previous") == .previous)
        #expect(command("Seek", [.int64(-10_000_000)]) == .seekBy(-10))
        #expect(command("SetPosition", [.objectPath(Self.item.trackID), .int64(30_500_000)]) == .seekTo(30.5))
        // A track that is no longer playing is ignored, as the specification asks.
        let stale = MPRIS.handle(
            MPRISCall(MPRIS.player, "SetPosition", [.objectPath("/org/feedsh/episode/other"), .int64(1)]),
            at: snapshot
        )
        #expect(stale.command == nil && (try? stale.reply.get()) == [])
        let wrong = MPRIS.handle(MPRISCall(MPRIS.player, "Seek", [.string("ten")]), at: snapshot)
        #expect(wrong.command == nil)
        #expect(
            wrong.reply
                == .failure(MPRISError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Seek takes (x)"))
        )
    }

    @Test func rateAndVolumeCanBeSetTheRestCannot() {
        let snapshot = Self.playing()
        func set(_ name: String, _ value: DBusValue) -> MPRISAnswer {
            MPRIS.handle(
                MPRISCall(MPRIS.properties, "Set", [.string(MPRIS.player), .string(name), .variant(value)]),
                at: snapshot
            )
        }
        #expect(set("Rate", .double(2)).command == .speed(2))
        #expect(set("Rate", .double(9)).command == .speed(4))
        #expect(set("Rate", .double(0)).command == .pause)
        #expect(set("Volume", .double(0.5)).command == .volume(50))
        let readOnly = set("PlaybackStatus", .string("Playing"))
        #expect(readOnly.command == nil)
        #expect((try? readOnly.reply.get()) == nil)
    }

    @Test func getAndGetAllAnswerVariantsAndDictionaries() throws {
        let snapshot = Self.playing()
        let one = MPRIS.handle(
            MPRISCall(MPRIS.properties, "Get", [.string(MPRIS.player), .string("PlaybackStatus")]),
            at: snapshot
        )
        #expect(try one.reply.get() == [.variant(.string("Playing"))])
        let root = MPRIS.handle(MPRISCall(MPRIS.properties, "GetAll", [.string(MPRIS.root)]), at: snapshot)
        guard case .dictionary(let values)? = try root.reply.get().first else {
            Issue.record("GetAll gave no dictionary")
            return
        }
        #expect(values["Identity"] == .string("feedsh"))
        #expect(values["CanQuit"] == .bool(false))
        let unknown = MPRIS.handle(
            MPRISCall(MPRIS.properties, "Get", [.string(MPRIS.player), .string("Shuffle")]),
            at: snapshot
        )
        #expect((try? unknown.reply.get()) == nil)
        let introspected = MPRIS.handle(MPRISCall(MPRIS.introspectable, "Introspect"), at: snapshot)
        guard case .string(let xml)? = try introspected.reply.get().first else {
            Issue.record("Introspect gave no text")
            return
        }
        #expect(xml.contains(#"<interface name="org.mpris.MediaPlayer2.Player">"#))
        #expect(xml.contains(#"<signal name="Seeked">"#))
    }

    @Test func changesLeaveThePlaceOutAndSeeksAreAnnounced() {
        let before = Self.playing(90)
        var moved = before
        moved.state?.position = 91
        #expect(MPRIS.changes(from: before, to: moved).isEmpty)
        #expect(MPRIS.seeked(from: before, to: moved) == nil)
        var paused = moved
        paused.state?.paused = true
        #expect(MPRIS.changes(from: moved, to: paused) == ["PlaybackStatus": .string("Paused")])
        var seeked = paused
        seeked.state?.position = 300
        seeked.state?.seeks = 1
        #expect(MPRIS.seeked(from: paused, to: seeked) == 300_000_000)
        let stopped = MPRIS.changes(from: seeked, to: MPRISSnapshot(item: Self.item, state: nil))
        #expect(stopped["PlaybackStatus"] == .string("Stopped"))
        #expect(stopped["CanPlay"] == .bool(false))
    }
}
