import Foundation
import Testing

@testable import Playback

/// mpv's IPC lines and what they mean, without mpv or sockets.
@Suite struct MPVProtocolTests {
    @Test func eventsAndRepliesAreRead() {
        #expect(
            MPVMessage.parse(Array(#"{"event":"property-change","id":1,"name":"time-pos","data":1.5}"#.utf8))
                == .propertyChange(name: "time-pos", value: 1.5)
        )
        #expect(
            MPVMessage.parse(Array(#"{"event":"property-change","id":1,"name":"time-pos"}"#.utf8))
                == .propertyChange(name: "time-pos", value: nil)
        )
        #expect(
            MPVMessage.parse(Array(#"{"event":"end-file","reason":"error","file_error":"loading failed"}"#.utf8))
                == .endFile(reason: "error", error: "loading failed")
        )
        #expect(
            MPVMessage.parse(Array(#"{"data":2.000000,"request_id":3,"error":"success"}"#.utf8))
                == .reply(id: 3, error: "success", value: 2)
        )
        #expect(MPVMessage.parse(Array(#"{"event":"seek"}"#.utf8)) == .seek)
        #expect(MPVMessage.parse(Array(#"{"event":"idle"}"#.utf8)) == .other("idle"))
        #expect(
            MPVMessage.parse(Array(#"{"event":"client-message","args":["feedsh-sleep","300"]}"#.utf8))
                == .clientMessage(["feedsh-sleep", "300"])
        )
        #expect(
            MPVMessage.parse(
                Array(
                    #"{"event":"property-change","id":5,"name":"chapter-list","data":[{"title":"Ad","time":10.5},{"time":20}]}"#
                        .utf8
                )
            ) == .chapterList([.init(start: 10.5, title: "Ad"), .init(start: 20, title: "")])
        )
        #expect(
            MPVMessage.parse(
                Array(
                    #"{"event":"property-change","id":6,"name":"af-metadata/feedsh-silence","data":{"lavfi.silence_end":"15.0001"}}"#
                        .utf8
                )
            ) == .metadata(name: "af-metadata/feedsh-silence", values: ["lavfi.silence_end": "15.0001"])
        )
        #expect(MPVMessage.parse(Array("not json".utf8)) == nil)
        #expect(MPVMessage.parse(Array(#"{"hello":1}"#.utf8)) == nil)
    }

    @Test func commandsAreOneJSONLineEach() {
        #expect(MPVCommand.observe("time-pos", id: 1).line == #"{"command":["observe_property",1,"time-pos"]}"# + "\n")
        #expect(
            MPVCommand.get("speed", requestID: 3).line == #"{"command":["get_property","speed"],"request_id":3}"# + "\n"
        )
        #expect(MPVCommand.quit.line == #"{"command":["quit"]}"# + "\n")
        #expect(MPVCommand.set("pause", false).line == #"{"command":["set_property","pause",false]}"# + "\n")
    }
}

@Suite struct PlaybackTrackerTests {
    /// The messages of a playback that starts at `from` and reaches `to`.
    func play(_ tracker: inout PlaybackTracker, from: Double, to: Double, step: Double = 0.25) -> [PlaybackEvent] {
        var events = tracker.handle(.reply(id: 3, error: "success", value: 1.5))
        events += tracker.handle(.propertyChange(name: "duration", value: 20))
        events += tracker.handle(.fileLoaded)
        events += tracker.handle(.playbackRestart)
        var position = from
        while position <= to {
            events += tracker.handle(.propertyChange(name: "time-pos", value: position))
            position += step
        }
        return events
    }

    @Test func startsOnlyOnceTheSpeedIsKnown() {
        var tracker = PlaybackTracker(pid: 7)
        #expect(tracker.handle(.propertyChange(name: "time-pos", value: 2)).isEmpty)
        #expect(
            tracker.handle(.reply(id: 3, error: "success", value: 1)) == [
                .started(pid: 7, from: 2, speed: 1, duration: nil)
            ]
        )
    }

    @Test func startsOnceThenReportsAboutOnceASecond() {
        var tracker = PlaybackTracker(pid: 42)
        let events = play(&tracker, from: 3, to: 6)
        #expect(events.first == .started(pid: 42, from: 3, speed: 1.5, duration: 20))
        #expect(
            events.dropFirst() == [.position(4, duration: 20), .position(5, duration: 20), .position(6, duration: 20)]
        )
    }

    @Test func quitMidwayKeepsThePositionAndIsNotPlayed() {
        var tracker = PlaybackTracker(pid: 1)
        _ = play(&tracker, from: 0, to: 7.5)
        _ = tracker.handle(.endFile(reason: "quit", error: nil))
        let end = tracker.end(.exited(0))
        #expect(end == PlaybackEnd(reason: .quit, position: 7.5, duration: 20, finished: false))
    }

    @Test func theEndOfTheFileOrPast95PercentIsPlayed() {
        var tracker = PlaybackTracker(pid: 1)
        _ = play(&tracker, from: 0, to: 18)
        _ = tracker.handle(.endFile(reason: "eof", error: nil))
        #expect(tracker.end(.exited(0)).finished)
        #expect(tracker.end(.exited(0)).reason == .endOfFile)

        var quitLate = PlaybackTracker(pid: 1)
        _ = play(&quitLate, from: 0, to: 19.25)
        _ = quitLate.handle(.endFile(reason: "quit", error: nil))
        #expect(quitLate.end(.exited(0)).finished)
    }

    @Test func aKilledPlayerKeepsTheLastPositionSeen() {
        var tracker = PlaybackTracker(pid: 1)
        _ = play(&tracker, from: 2, to: 4)
        let end = tracker.end(.signaled(9))
        #expect(end == PlaybackEnd(reason: .exited(.signaled(9)), position: 4, duration: 20, finished: false))
    }

    @Test func aFileThatCannotBePlayedSaysWhy() {
        var tracker = PlaybackTracker(pid: 1)
        _ = tracker.handle(.endFile(reason: "error", error: "loading failed"))
        #expect(tracker.end(.exited(2)).reason == .failed("loading failed"))
        #expect(!tracker.end(.exited(2)).finished)

        // mpv exited before it said anything: its status says it failed.
        #expect(PlaybackTracker(pid: 1).end(.exited(2)).reason == .failed("mpv exited with status 2"))
        #expect(PlaybackTracker(pid: 1).end(.signaled(9)).reason == .exited(.signaled(9)))
    }

    /// `--at 99:00` on a 2:00 file: mpv reports the asked place, past 95 % of the
    /// duration, then fails. That is no play to the end.
    @Test func aFailureAfterAPositionPastTheEndIsNotPlayed() {
        var tracker = PlaybackTracker(pid: 1)
        _ = tracker.handle(.propertyChange(name: "duration", value: 120))
        _ = tracker.handle(.propertyChange(name: "time-pos", value: 5940))
        _ = tracker.handle(.endFile(reason: "error", error: "no audio or video data played"))
        let end = tracker.end(.exited(2))
        #expect(end.reason == .failed("no audio or video data played"))
        #expect(!end.finished)
    }
}

@Suite struct PlayerCommandTests {
    @Test func mpvGetsItsOptionsBeforeTheFile() {
        let player = PlayerCommand("mpv --no-video")
        #expect(player.isMPV)
        #expect(
            player.arguments(source: "/tmp/it's.mp3", options: ["--start=3"])
                == ["mpv", "--no-video", "--start=3", "--", "/tmp/it's.mp3"]
        )
        #expect(PlayerCommand("/usr/local/bin/mpv").isMPV)
        // With {}, mpv gets the file there, its options just before.
        #expect(
            PlayerCommand("mpv --no-video {} --loop=no").arguments(source: "http://h/a.mp3", options: ["--start=3"])
                == ["mpv", "--no-video", "--start=3", "http://h/a.mp3", "--loop=no"]
        )
    }

    @Test func otherPlayersGetTheFileWhereTheBracesAre() {
        #expect(!PlayerCommand("mpg123 -q {}").isMPV)
        #expect(PlayerCommand("mpg123 -q {} --x").arguments(source: "a b.mp3") == ["mpg123", "-q", "a b.mp3", "--x"])
        #expect(PlayerCommand("ffplay -nodisp").arguments(source: "$(rm).mp3") == ["ffplay", "-nodisp", "$(rm).mp3"])
        #expect(PlayerCommand("vlc --file={}").arguments(source: "a.mp3") == ["vlc", "--file=a.mp3"])
    }

    /// However the template quotes `{}`, the file or URL is one argument, never
    /// read by a shell: a crafted enclosure URL runs nothing.
    @Test(arguments: [#"mpv "{}""#, "mpv '{}'", #"mpg123 "{}""#, "mpg123 {}"])
    func noTemplateLetsAURLRunACommand(template: String) {
        let url = #"http://evil.example/a.mp3?$(touch /tmp/pwned)`id`"';x"#
        let arguments = PlayerCommand(template).arguments(source: url, options: ["--start=3"])
        #expect(arguments.last == url || arguments.contains(url), "\(arguments)")
        #expect(!arguments.contains { $0.contains("sh") && $0 != url })
        #expect(arguments.first == PlayerCommand(template).program)
    }

    @Test func aMissingPlayerSaysHowToInstallMPVOrChooseAnother() async {
        let missing = PlayerCommand("no-such-player-feedsh {}")
        await #expect(throws: PlaybackError.playerNotFound(missing)) {
            _ = try await Player.play(PlayRequest(source: "x", title: "x", terminal: false), with: missing) { _ in }
        }
        #expect(PlaybackError.playerNotFound(.mpv).description.contains("apt-get install mpv"))
        #expect(PlaybackError.playerNotFound(.mpv).code == .playerNotFound)
        #expect(PlaybackError.cannotStart(.mpv, reason: "x").code.description == "player-failed")
        // How to choose another is the front end's to say (the shell: 'set player').
        #expect(!PlaybackError.playerNotFound(.mpv).description.contains("set player"))
    }

    /// mpv's chapter index (from 0, -1 before the first) becomes a chapter number
    /// from 1, once each time it changes.
    @Test func chaptersAreNumberedFromOneOnceEach() {
        var tracker = PlaybackTracker(pid: 7)
        #expect(tracker.handle(.propertyChange(name: "chapter", value: -1)).isEmpty)
        #expect(tracker.handle(.propertyChange(name: "chapter", value: 0)) == [.chapter(1)])
        #expect(tracker.handle(.propertyChange(name: "chapter", value: 0)).isEmpty)
        #expect(tracker.handle(.propertyChange(name: "chapter", value: 2)) == [.chapter(3)])
        #expect(tracker.handle(.propertyChange(name: "chapter", value: nil)).isEmpty)
    }
}

/// The chapters file mpv's `--chapters-file` reads.
@Suite struct ChaptersFileTests {
    @Test func chaptersBecomeFFmetadataInTimeOrderWithTitlesEscaped() {
        let text = PlayRequest.ffmetadata([
            .init(start: 30.5, title: "Two = 1+1; #2 \\ end"),
            .init(start: 0, title: "One"),
        ])
        #expect(
            text == """
                ;FFMETADATA1
                [CHAPTER]
                TIMEBASE=1/1000
                START=0
                END=30500
                title=One
                [CHAPTER]
                TIMEBASE=1/1000
                START=30500
                END=86430500
                title=Two \\= 1+1\\; \\#2 \\\\ end

                """
        )
    }

    /// Values a library or a caller could hold never trap on the way to mpv.
    @Test func hugeOrBrokenNumbersDoNotTrap() {
        #expect(Player.seconds(12) == "12")
        #expect(Player.seconds(1.5) == "1.500")
        #expect(Player.seconds(.infinity) == "0")
        #expect(Player.seconds(.nan) == "0")
        #expect(Player.seconds(1e300).hasPrefix("1000000"))
        #expect(
            PlayRequest.ffmetadata([.init(start: 1e300, title: "x"), .init(start: -.infinity, title: "y")]).contains(
                "START=0"
            )
        )
    }
}

@Suite struct PlayRequestTests {
    /// A hostile feed's 100,000 chapters: mpv gets the first thousand in time.
    @Test func theChaptersHandedToMPVAreBounded() {
        let many = (0..<100_000).reversed().map { PlayRequest.Chapter(start: Double($0), title: "c\($0)") }
        let request = PlayRequest(source: "x", title: "x", terminal: false, chapters: many)
        #expect(request.chapters.count == PlayRequest.mostChapters)
        #expect(request.chapters.first?.start == 0 && request.chapters.last?.start == 999)
        let few = [PlayRequest.Chapter(start: 5, title: "b"), PlayRequest.Chapter(start: 1, title: "a")]
        #expect(PlayRequest(source: "x", title: "x", terminal: false, chapters: few).chapters == few)
    }
}
