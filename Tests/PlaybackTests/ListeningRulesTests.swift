import Testing

@testable import Playback

/// The listening rules as the tracker applies them, fed mpv's messages and a
/// clock by hand: no mpv, no sockets.
@Suite struct ListeningRulesTests {
    /// A tracker that has started at `from` (speed `speed`, duration `duration`).
    func started(_ rules: PlaybackRules, from: Double = 0, speed: Double = 1, duration: Double = 40) -> PlaybackTracker
    {
        var tracker = PlaybackTracker(pid: 1, rules: rules)
        _ = tracker.handle(.reply(id: 3, error: "success", value: speed), at: 0)
        _ = tracker.handle(.propertyChange(name: "duration", value: duration), at: 0)
        _ = tracker.handle(.propertyChange(name: "time-pos", value: from), at: 0)
        return tracker
    }

    @Test func theFiltersAreInTheChainOnlyWhenSet() {
        #expect(AudioFilters().mpvFilters.isEmpty)
        #expect(AudioFilters(volumeBoost: 6).mpvFilters == ["@feedsh-boost:lavfi=[volume=6dB]"])
        let all = AudioFilters(skipSilence: true, loudness: true, volumeBoost: 2.5).mpvFilters.joined(separator: ",")
        #expect(all.hasPrefix("@feedsh-silence:lavfi=[silencedetect=n=-50dB:d=1]"))
        #expect(all.contains("@feedsh-trim:lavfi=[silenceremove=stop_periods=-1"))
        #expect(all.contains("@feedsh-loudness:lavfi=[dynaudnorm"))
        #expect(all.hasSuffix("@feedsh-boost:lavfi=[volume=2.500dB]"))
    }

    @Test func silenceMapTurnsTheShortenedStreamBackIntoFilePositions() {
        var map = SilenceMap()
        map.restart(at: 0)
        // A pause from 5 s to 15 s keeps 0.25 s: 9.75 s removed, from stream 5.25 s.
        map.silence(from: 5, to: 15)
        #expect(map.file(4) == 4)
        #expect(map.file(6) == 15.75)
        // Reported again (mpv repeats properties): counted once.
        map.silence(from: 5, to: 15)
        #expect(map.removed(before: 100) == 9.75)
        // A second pause, 25-30 in the file, collapses at 25.25 - 9.75 = 15.5 in the stream.
        map.silence(from: 25, to: 30)
        #expect(map.file(15) == 24.75)
        #expect(map.file(16) == 16 + 9.75 + 4.75)
        // A seek starts the filters again: the stream is the file, and mpv's repeat
        // of the last report is not taken as a new pause until playback moves on.
        map.restart(at: 22)
        map.silence(from: 25, to: 30)
        #expect(map.file(23) == 23)
        #expect(map.removed(before: 100) == 0)
        map.passed(23)
        map.silence(from: 26, to: 28)
        #expect(map.file(27) == 27 + 1.75)
        // An earlier graph's pause, before the seek, is not taken.
        map.silence(from: 5, to: 15)
        #expect(map.removed(before: 100) == 1.75)
    }

    @Test func aTrackerWithSkipSilenceReportsFilePositionsAndWhatWasSkipped() {
        var tracker = started(PlaybackRules(silenceSkipped: true), duration: 30)
        _ = tracker.handle(
            .metadata(
                name: "af-metadata/feedsh-silence",
                values: [
                    "lavfi.silence_start": "5", "lavfi.silence_end": "15", "lavfi.silence_duration": "10",
                ]
            ),
            at: 0.1
        )
        var at = 0.0
        var stream = 0.0
        var events: [PlaybackEvent] = []
        while stream < 10 {
            at += 0.25
            stream += 0.25
            events += tracker.handle(.propertyChange(name: "time-pos", value: stream), at: at)
        }
        #expect(tracker.position == 10 + 9.75)
        // mpv's own status line is given the file's time, once a second, not
        // the shortened time mpv counts (19.75 s in the file at 10 s of playing).
        let statuses = tracker.takeCommands().compactMap { command -> String? in
            if case .setText("term-status-msg", let line) = command { line } else { nil }
        }
        #expect(
            statuses.last == "${?pause==yes:(Paused) }A: 0:19 / 0:30 (63%)${?speed!=1: x${speed}} (silence skipped)"
        )
        #expect(statuses.count == Set(statuses).count)
        #expect(statuses.count <= 20)
        // Positions are the file's: from 5 s straight on to 15 s.
        #expect(events.contains(.position(5, duration: 30)))
        #expect(events.contains(.position(15, duration: 30)))
        #expect(!events.contains { if case .position(let at, _) = $0 { at > 5.5 && at < 14.5 } else { false } })
        _ = tracker.handle(.endFile(reason: "quit", error: nil), at: at)
        let end = tracker.end(.exited(0))
        #expect(end.position == 19.75)
        #expect(end.listened.silenceSkipped == 9.75)
        #expect(abs(end.listened.heard - 19.75) < 0.01)
        #expect(abs(end.listened.wall - 10) < 0.01)
    }

    @Test func withoutSkipSilenceMpvKeepsItsOwnStatusLine() {
        var tracker = started(PlaybackRules())
        _ = tracker.handle(.propertyChange(name: "time-pos", value: 3), at: 3)
        #expect(!tracker.takeCommands().contains { if case .setText = $0 { true } else { false } })
    }

    @Test func aChapterToSkipIsJumpedOverOnce() {
        var tracker = started(PlaybackRules(skipChapters: ["Sponsor", "ad"]))
        let list = tracker.handle(
            .chapterList([
                .init(start: 0, title: "Welcome"), .init(start: 10, title: "Our SPONSOR"),
                .init(start: 20, title: "Ad break"), .init(start: 25, title: "Story"),
            ]),
            at: 0
        )
        #expect(list == [.chapter(1)])
        #expect(
            tracker.handle(.propertyChange(name: "time-pos", value: 1), at: 1) == [
                .position(1, duration: 40)
            ]
        )
        #expect(tracker.takeCommands().isEmpty)
        let entering = tracker.handle(.propertyChange(name: "time-pos", value: 10.1), at: 2)
        #expect(entering.contains(.skippedChapter(number: 2, title: "Our SPONSOR")))
        // Both chapters to skip go at once: to the story's start.
        #expect(tracker.takeCommands().first == .seek(25))
        // Until the seek lands, positions judge no chapter.
        #expect(
            tracker.handle(.propertyChange(name: "time-pos", value: 10.2), at: 2.1).allSatisfy {
                if case .skippedChapter = $0 { false } else { true }
            }
        )
        _ = tracker.handle(.seek, at: 2.2)
        #expect(tracker.handle(.propertyChange(name: "time-pos", value: 25), at: 2.3).contains(.chapter(4)))
        #expect(tracker.takeCommands().isEmpty)
    }

    /// A play that starts inside a chapter to skip (a `find` hit, a bookmark) jumps
    /// once mpv's chapter list arrives, even after mpv named the chapter.
    @Test func aPlayStartingInsideAChapterToSkipJumpsWhenTheListArrives() {
        var tracker = started(PlaybackRules(skipChapters: ["sponsor"]), from: 12)
        #expect(tracker.handle(.propertyChange(name: "chapter", value: 1), at: 0.1) == [.chapter(2)])
        let arrived = tracker.handle(
            .chapterList([
                .init(start: 0, title: "Welcome"), .init(start: 10, title: "Sponsor"), .init(start: 20, title: "Story"),
            ]),
            at: 0.2
        )
        #expect(arrived == [.skippedChapter(number: 2, title: "Sponsor")])
        #expect(tracker.takeCommands().first == .seek(20))
    }

    @Test func theOutroEndsTheEpisodeAsPlayed() {
        var tracker = started(PlaybackRules(skipOutro: 15))
        #expect(tracker.handle(.propertyChange(name: "time-pos", value: 20), at: 1).contains(.outro(at: 20)) == false)
        #expect(tracker.handle(.propertyChange(name: "time-pos", value: 25), at: 2).contains(.outro(at: 25)))
        #expect(tracker.takeCommands() == [.quit])
        _ = tracker.handle(.endFile(reason: "quit", error: nil), at: 2)
        #expect(tracker.end(.exited(0)).finished)
    }

    @Test func aTimedSleepFadesOverItsLastTenSecondsThenStops() {
        var tracker = started(PlaybackRules(sleep: .after(30)))
        _ = tracker.handle(.reply(id: 7, error: "success", value: 80), at: 0)
        #expect(tracker.tick(at: 10).isEmpty)
        #expect(tracker.takeCommands().isEmpty)
        #expect(tracker.remaining(at: 10) == 20)
        _ = tracker.tick(at: 25)
        // Halfway through the fade: half the listener's volume.
        #expect(tracker.takeCommands() == [.setNumber("volume", 40)])
        _ = tracker.handle(.propertyChange(name: "time-pos", value: 29), at: 29.9)
        let stop = tracker.tick(at: 30.1)
        #expect(stop == [.slept(at: 29)])
        #expect(tracker.takeCommands().last == .quit)
        _ = tracker.handle(.endFile(reason: "quit", error: nil), at: 30.2)
        let end = tracker.end(.exited(0))
        #expect(end.slept)
        #expect(!end.finished)
        #expect(end.position == 29)
    }

    @Test func anotherFeedshSetsAndCancelsTheTimer() {
        var tracker = started(PlaybackRules())
        let set = tracker.handle(.clientMessage(["feedsh-sleep", "120"]), at: 5)
        #expect(set.first == .sleep(.after(120), remaining: 120))
        #expect(tracker.remaining(at: 65) == 60)
        _ = tracker.takeCommands()
        _ = tracker.tick(at: 120)
        #expect(tracker.takeCommands().first == .setNumber("volume", 50))
        #expect(tracker.handle(.clientMessage(["feedsh-sleep", "off"]), at: 121) == [.sleep(nil, remaining: nil)])
        // The volume comes back.
        #expect(tracker.takeCommands().first == .setNumber("volume", 100))
        #expect(tracker.tick(at: 200).isEmpty)
        // A word it does not know changes nothing.
        #expect(tracker.handle(.clientMessage(["feedsh-sleep", "soon"]), at: 201).isEmpty)
    }

    @Test func sleepAtTheEndOfTheChapterOrEpisode() {
        var chapter = started(PlaybackRules(sleep: .endOfChapter), speed: 2)
        _ = chapter.handle(.chapterList([.init(start: 0, title: "One"), .init(start: 20, title: "Two")]), at: 0)
        _ = chapter.handle(.propertyChange(name: "time-pos", value: 10), at: 5)
        // 10 s of the chapter left at 2×: 5 s.
        #expect(chapter.remaining(at: 5) == 5)
        #expect(chapter.handle(.propertyChange(name: "time-pos", value: 20), at: 10).contains(.slept(at: 20)))

        var episode = started(PlaybackRules(sleep: .endOfEpisode))
        _ = episode.handle(.propertyChange(name: "time-pos", value: 39.9), at: 40)
        _ = episode.handle(.endFile(reason: "eof", error: nil), at: 40)
        let end = episode.end(.exited(0))
        #expect(end.finished && end.slept)
    }

    @Test func theBookmarkKeyMarksThePosition() {
        var tracker = started(PlaybackRules(bookmarkKey: true), from: 754)
        #expect(
            PlaybackTracker.commands(for: PlaybackRules(bookmarkKey: true)).contains(
                .keybind("b", "script-message feedsh-bookmark")
            )
        )
        #expect(tracker.handle(.clientMessage(["feedsh-bookmark"]), at: 1) == [.bookmark(at: 754)])
        #expect(tracker.takeCommands() == [.showText("Bookmark at 12:34")])
        // Without a library episode to keep it, the key is not bound and does nothing.
        var song = started(PlaybackRules())
        #expect(song.handle(.clientMessage(["feedsh-bookmark"]), at: 1).isEmpty)
    }

    @Test func sleepTimerWords() {
        #expect(SleepTimer(word: "end") == .endOfEpisode)
        #expect(SleepTimer(word: "chapter") == .endOfChapter)
        #expect(SleepTimer(word: "1800") == .after(1800))
        #expect(SleepTimer(word: "0") == nil)
        #expect(SleepTimer(word: "86401") == nil)
        #expect(SleepTimer.after(90.5).word == "90.500")
    }
}
