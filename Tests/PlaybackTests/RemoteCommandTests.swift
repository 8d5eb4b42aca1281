import Processes
import Testing

@testable import Playback

/// A remote control's commands (the media keys) as the tracker turns them into
/// mpv's, fed mpv's messages by hand: no mpv, no bus.
@Suite struct RemoteCommandTests {
    /// A tracker playing at `at` seconds of a 100 s file with chapters at 0, 30
    /// and 60.
    func playing(at position: Double, rules: PlaybackRules = PlaybackRules()) -> PlaybackTracker {
        var tracker = PlaybackTracker(pid: 1, rules: rules)
        _ = tracker.handle(.reply(id: 3, error: "success", value: 1), at: 0)
        _ = tracker.handle(.propertyChange(name: "duration", value: 100), at: 0)
        _ = tracker.handle(.propertyChange(name: "pause", value: 0), at: 0)
        _ = tracker.handle(
            .chapterList([.init(start: 0, title: "A"), .init(start: 30, title: "B"), .init(start: 60, title: "C")]),
            at: 0
        )
        _ = tracker.handle(.propertyChange(name: "time-pos", value: position), at: 0)
        _ = tracker.takeCommands()
        return tracker
    }

    func commands(_ command: RemoteCommand, at position: Double, rules: PlaybackRules = PlaybackRules())
        -> [MPVCommand]
    {
        var tracker = playing(at: position, rules: rules)
        _ = tracker.remote(command)
        return tracker.takeCommands()
    }

    @Test func theStateIsWhatMPVSaid() {
        var tracker = playing(at: 42)
        #expect(
            tracker.playerState
                == PlayerState(paused: false, position: 42, duration: 100, speed: 1, chapterStarts: [0, 30, 60])
        )
        _ = tracker.handle(.propertyChange(name: "pause", value: 1), at: 1)
        _ = tracker.handle(.propertyChange(name: "speed", value: 1.5), at: 1)
        #expect(tracker.playerState.paused && tracker.playerState.speed == 1.5)
        // A seek that lands is counted, so that a remote announces it.
        _ = tracker.handle(.seek, at: 2)
        _ = tracker.handle(.propertyChange(name: "time-pos", value: 80), at: 2)
        #expect(tracker.playerState.seeks == 1 && tracker.playerState.position == 80)
    }

    @Test func playPauseToggles() {
        #expect(commands(.playPause, at: 5) == [.set("pause", true)])
        var paused = playing(at: 5)
        _ = paused.handle(.propertyChange(name: "pause", value: 1), at: 1)
        _ = paused.remote(.playPause)
        #expect(paused.takeCommands() == [.set("pause", false)])
        #expect(commands(.play, at: 5) == [.set("pause", false)])
        #expect(commands(.pause, at: 5) == [.set("pause", true)])
    }

    @Test func seeksStayInTheFileAndPastTheEndIsNext() {
        #expect(commands(.seekBy(-10), at: 5) == [.seek(0)])
        #expect(commands(.seekBy(10), at: 5) == [.seek(15)])
        #expect(commands(.seekTo(50), at: 5) == [.seek(50)])
        #expect(commands(.seekTo(150), at: 5).isEmpty)
        #expect(commands(.seekTo(-1), at: 5).isEmpty)
        // Past the end from the last chapter, with nothing after: nothing.
        #expect(commands(.seekBy(60), at: 70).isEmpty)
        #expect(commands(.seekBy(60), at: 70, rules: PlaybackRules(nextEpisode: true)) == [.quit])
    }

    @Test func nextAndPreviousGoByChapters() {
        #expect(commands(.next, at: 5) == [.seek(30)])
        #expect(commands(.next, at: 40) == [.seek(60)])
        #expect(commands(.next, at: 70).isEmpty)
        #expect(commands(.next, at: 70, rules: PlaybackRules(nextEpisode: true)) == [.quit])
        #expect(commands(.previous, at: 40) == [.seek(30)])
        #expect(commands(.previous, at: 31) == [.seek(0)])
        #expect(commands(.previous, at: 2) == [.seek(0)])
    }

    @Test func stopEndsTheRunAndKeepsThePlace() {
        var tracker = playing(at: 42)
        _ = tracker.remote(.stop)
        #expect(tracker.takeCommands() == [.quit])
        _ = tracker.handle(.endFile(reason: "quit", error: nil), at: 3)
        let end = tracker.end(.exited(0))
        #expect(end.stopped && end.reason == .quit && end.position == 42 && !end.finished)
    }

    @Test func speedAndVolume() {
        #expect(commands(.speed(2), at: 5) == [.setNumber("speed", 2)])
        #expect(commands(.speed(0), at: 5) == [.set("pause", true)])
        #expect(commands(.volume(50), at: 5) == [.setNumber("volume", 50)])
        #expect(commands(.speed(.nan), at: 5).isEmpty)
    }
}
