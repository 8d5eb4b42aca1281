import FeedKit
import FeedServices
import FixtureServer
import Foundation
import Library
import Playback
import ShellKit
import Testing

@testable import FeedShell

/// The library and listening commands run in-process, against the fixture server
/// (the end-to-end suites run them again on the binary).
@Suite("Library commands in-process")
struct LibraryCommandTests {
    /// `import`, the first `update` (nothing called new), a second `update` that
    /// finds one (and `new` lists it), and `export` of what was imported.
    @Test func importUpdateNewAndExport() async throws {
        try await ShellHarness.run { h in
            let base = h.server.baseURL.absoluteString
            let feed = "\(base)/fault/changes=1/feeds/1386867488.xml"
            let list = h.downloads.appendingPathComponent("in.opml")
            try FileManager.default.createDirectory(at: h.downloads, withIntermediateDirectories: true)
            try """
            <opml version="2.0"><body><outline type="rss" text="Loopback" xmlUrl="\(feed)"/></body></opml>
            """.write(to: list, atomically: true, encoding: .utf8)
            #expect(await h.run("import \(list.path); update; new") == .success)
            var out = h.output.standardOutput
            #expect(out.contains("Loopback Radio: first read, 5 episodes (none marked new)"), "\(out)")
            #expect(out.contains("no new episodes"), "\(out)")
            h.output.clear()
            #expect(await h.run("update; new") == .success)
            out = h.output.standardOutput
            #expect(out.contains("Loopback Radio: 1 new episode"), "\(out)")
            #expect(out.contains("Bonus episode 1"), "\(out)")
            // n1's line of the table (its four columns read by one join): the
            // podcast's title beside the episode's.
            let line = out.split(separator: "\n").first { $0.split(separator: " ").first == "n1" }
            #expect(line?.contains("Loopback Radio") == true && line?.contains("Bonus episode 1") == true, "\(out)")
            let exported = h.downloads.appendingPathComponent("out.opml")
            h.output.clear()
            #expect(await h.run("export \(exported.path)") == .success)
            let text = try String(contentsOf: exported, encoding: .utf8)
            #expect(text.contains("xmlUrl=\"\(feed)\""), "\(text)")
        }
    }

    /// `update` takes its subscriptions as a selector of their own numbers: one,
    /// a list or range, `all`; a number that is no subscription is refused, naming
    /// the ones there are, before any feed is read.
    @Test func updateSelectsSubscriptionsByNumber() async throws {
        try await ShellHarness.run { h in
            let base = h.server.baseURL.absoluteString
            let feeds = ["1386867488", "1000000001", "1000000002"].map { "\(base)/feeds/\($0).xml" }
            #expect(await h.run(feeds.map { "subscribe \($0)" }.joined(separator: "; ")) == .success)
            h.output.clear()
            #expect(await h.run("update 1,3") == .success)
            #expect(h.output.standardOutput.contains("2 feeds:"), "\(h.output.standardOutput)")
            h.output.clear()
            #expect(await h.run("update 2-3") == .success)
            #expect(h.output.standardOutput.contains("2 feeds:"), "\(h.output.standardOutput)")
            h.output.clear()
            #expect(await h.run("update all") == .success)
            #expect(h.output.standardOutput.contains("3 feeds:"), "\(h.output.standardOutput)")
            h.output.clear()
            #expect(await h.run("update 2,9") == .failure)
            #expect(h.output.standardError.contains("no subscription 9 (1-3)"), "\(h.output.standardError)")
            #expect(h.output.standardOutput.isEmpty, "\(h.output.standardOutput)")
            h.output.clear()
            #expect(await h.run("update x") == .failure)
            #expect(
                h.output.standardError.contains("'x' is not a subscription number or range"),
                "\(h.output.standardError)"
            )
        }
    }

    /// `chapters` lists a library episode's podcast:chapters in time order,
    /// sanitized and without `toc: false` markers; an episode without chapters and
    /// a malformed chapters file are refused, the latter naming its JSON path.
    @Test func chaptersListsTheFeedsChapters() async throws {
        try await ShellHarness.run { h in
            let feed = "\(h.server.baseURL.absoluteString)/feeds/listening.xml"
            #expect(await h.run("subscribe \(feed)") == .success)
            h.output.clear()
            #expect(await h.run("chapters 1:1") == .success)
            let out = h.output.standardOutput
            let lines = out.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(out)")
            // Every column has its header, the chapters' links too.
            #expect(lines.first == "#  Start  Title       Link", "\(out)")
            #expect(lines.dropFirst().first == "1   0:00  Opening     https://example.org/opening", "\(out)")
            #expect(out.contains("0:30  The middle"), "\(out)")
            #expect(out.contains("1:30  Close"), "\(out)")
            #expect(!out.contains("silent") && !out.contains("\u{1B}"), "\(out)")
            // Kept once read: the next time (and play) reads the cache.
            let asked = { h.server.requests.filter { $0.path == "/chapters/tone-1.json" }.count }
            #expect(asked() == 1)
            #expect(await h.run("chapters 1:1") == .success)
            #expect(asked() == 1)
            h.output.clear()
            #expect(await h.run("chapters 1:2") == .failure)
            #expect(h.output.standardError.contains("chapters[0].startTime"), "\(h.output.standardError)")
            h.output.clear()
            #expect(await h.run("chapters 1:3") == .failure)
            #expect(h.output.standardError.contains("has no chapters"), "\(h.output.standardError)")
        }
        try await ShellHarness.run(json: true) { h in
            let feed = "\(h.server.baseURL.absoluteString)/feeds/listening.xml"
            #expect(await h.run("subscribe \(feed); chapters 1:1") == .success)
            let last = h.output.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
            #expect(
                last.contains(
                    #""result":[{"number":1,"start":0.0,"title":"Opening","url":"https://example.org/opening"}"#
                ),
                "\(last)"
            )
            #expect(last.contains(#"{"number":2,"start":30.5,"title":"The middle","url":null}"#), "\(last)")
        }
    }

    /// `transcript` shows the richest transcript offered (WebVTT over plain text)
    /// with times and speakers, sanitized, fetched once; malformed, unreadable,
    /// oversized and missing transcripts each say what is wrong.
    @Test func transcriptShowsTheRichestAndSaysWhatIsWrong() async throws {
        try await ShellHarness.run { h in
            let feed = "\(h.server.baseURL.absoluteString)/feeds/listening.xml"
            #expect(await h.run("subscribe \(feed)") == .success)
            h.output.clear()
            #expect(await h.run("transcript 1:1") == .success)
            let out = h.output.standardOutput
            #expect(out.contains("transcript (WebVTT)"), "\(out)")
            #expect(out.contains("[0:00] Ada: Welcome to the tone, a steady hum."), "\(out)")
            #expect(out.contains("[0:30] The middle part, still humming."), "\(out)")
            #expect(out.contains("[1:15] Grace: An aardvark would not notice the difference."), "\(out)")
            #expect(!out.contains("\u{1B}") && !out.contains("owned\u{07}"), "\(out)")
            #expect(!out.contains("400 hertz"), "\(out)")
            let asked = { h.server.requests.filter { $0.path == "/transcripts/tone-1.vtt" }.count }
            #expect(await h.run("transcript 1:1") == .success)
            #expect(asked() == 1)
            #expect(await h.run("transcript 1:1 --refresh") == .success)
            #expect(asked() == 2)
            for (ref, expected) in [
                ("1:2", "SRT line 6: '00:00:0x,000 ' is not a time"),
                ("1:5", "larger than 8 MiB"),
            ] {
                h.output.clear()
                #expect(await h.run("transcript \(ref)") == .failure)
                #expect(h.output.standardError.contains(expected), "\(h.output.standardError)")
            }
            h.output.clear()
            #expect(await h.run("transcript 1:3; transcript 1:4") == .success)
            #expect(h.output.standardOutput.contains("[0:00] Ada: Four seconds of tone."), "\(h.output.standardOutput)")
            #expect(
                h.output.standardOutput.contains("[0:01] Ada: Three & a bit seconds."),
                "\(h.output.standardOutput)"
            )
            #expect(!h.output.standardOutput.contains("alert"), "\(h.output.standardOutput)")
            h.output.clear()
            #expect(await h.run("subscribe \(h.server.baseURL.absoluteString)/feeds/1386867488.xml") == .success)
            #expect(await h.run("transcript 2:1") == .failure)
            #expect(h.output.standardError.contains("has no transcript"), "\(h.output.standardError)")
        }
    }

    /// With `set transcripts auto on`, `update` fetches the transcripts of the
    /// episodes it found new (and only those), so `find` searches them.
    @Test func updateFetchesNewEpisodesTranscriptsWhenAsked() async throws {
        for auto in [false, true] {
            try await ShellHarness.run { h in
                let feed = "\(h.server.baseURL.absoluteString)/fault/changes=1/feeds/listening.xml"
                #expect(
                    await h.run("set transcripts \(auto ? "auto on" : "off"); subscribe \(feed); update") == .success
                )
                let out = h.output.standardOutput
                #expect(out.contains("transcripts is auto \(auto ? "on" : "off")"), "\(out)")
                #expect(out.contains("1 new episode"), "\(out)")
                #expect(out.contains("fetched 1 transcript") == auto, "\(out)")
                let fetched = h.server.requests.filter { $0.path.hasPrefix("/transcripts/") }.map(\.path)
                #expect(fetched == (auto ? ["/transcripts/tone-3.json"] : []), "\(fetched)")
                guard auto else { return }
                h.output.clear()
                #expect(await h.run("find four seconds") == .success)
                #expect(h.output.standardOutput.contains("1:1 at 0:00"), "\(h.output.standardOutput)")
                h.output.clear()
                #expect(await h.run("set transcripts maybe") == .failure)
                #expect(h.output.standardError.contains("transcripts takes on or off"), "\(h.output.standardError)")
            }
        }
    }

    /// `find` searches titles, show notes and fetched transcripts across the
    /// library, names each hit's P:E and, in a transcript, its time; `play P:E
    /// --at` of that time is what it suggests. No input is an FTS5 syntax error.
    @Test func findSearchesTheLibraryAndTranscripts() async throws {
        try await ShellHarness.run { h in
            let base = h.server.baseURL.absoluteString
            #expect(await h.run("play f1") == .failure)
            #expect(h.output.standardError.contains("no hits to play"), "\(h.output.standardError)")
            h.output.clear()
            #expect(
                await h.run("subscribe \(base)/feeds/1386867488.xml; subscribe \(base)/feeds/listening.xml") == .success
            )
            h.output.clear()
            #expect(await h.run("find aardvark") == .success)
            #expect(h.output.standardOutput.contains("nothing found"), "\(h.output.standardOutput)")
            #expect(await h.run("transcript 2:1") == .success)
            h.output.clear()
            #expect(await h.run("find aardvark") == .success)
            var out = h.output.standardOutput
            #expect(out.contains("f1  2:1 at 1:15  Tones for Listening: Tone 1: 120 seconds"), "\(out)")
            #expect(out.contains("An aardvark would not notice"), "\(out)")
            #expect(out.contains("'play fN' plays hit N"), "\(out)")
            // Words of the paragraph's second cue: the time they were said, not
            // the paragraph's (1:15).
            h.output.clear()
            #expect(await h.run("find closing words") == .success)
            out = h.output.standardOutput
            #expect(out.contains("f1  2:1 at 1:30  Tones for Listening: Tone 1: 120 seconds"), "\(out)")
            h.output.clear()
            #expect(await h.run("find aardvark") == .success)
            h.output.clear()
            #expect(await h.run("play f2") == .failure)
            #expect(h.output.standardError.contains("no hit f2 (there is 1)"), "\(h.output.standardError)")
            h.output.clear()
            #expect(await h.run("find \"400 Hz\" tone") == .success)
            out = h.output.standardOutput
            #expect(out.contains("2:1  Tones for Listening"), "\(out)")
            #expect(!out.contains("1:1"), "\(out)")
            h.output.clear()
            #expect(await h.run("find 'c++' OR 'title:(' NOT") == .success)
            h.output.clear()
            #expect(await h.run("find 'a*b'") == .failure)
            #expect(h.output.standardError.contains("'a*b': '*' marks a prefix only"), "\(h.output.standardError)")
            // Unsubscribing takes its episodes out of the index.
            #expect(await h.run("unsubscribe 2") == .success)
            h.output.clear()
            #expect(await h.run("find aardvark") == .success)
            #expect(h.output.standardOutput.contains("nothing found"), "\(h.output.standardOutput)")
        }
        try await ShellHarness.run(json: true) { h in
            let feed = "\(h.server.baseURL.absoluteString)/feeds/listening.xml"
            #expect(await h.run("subscribe \(feed); transcript 1:1; find aardvark") == .success)
            let last = h.output.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
            #expect(
                last.contains(
                    #""result":[{"ref":"1:1","podcast":"Tones for Listening","title":"Tone 1: 120 seconds","snippet":"An aardvark would not notice the difference. Closing words.","at":75.0}]"#
                ),
                "\(last)"
            )
        }
    }

    /// Asking `find` or `queue` before there is a library finds nothing and makes
    /// no library; with colour, `find` shows the words found in bold.
    @Test func askingMakesNoLibraryAndHitsAreBold() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("find anything; queue; queue clear") == .success)
            let out = h.output.standardOutput
            #expect(out.contains("nothing found") && out.contains("the queue is empty"), "\(out)")
            #expect(!FileManager.default.fileExists(atPath: h.downloads.appendingPathComponent(".library.sqlite").path))
            #expect(await h.run("queue rm 1") == .failure)
            #expect(h.output.standardError.contains("no queue entry"), "\(h.output.standardError)")
        }
        let hit = SearchHit(
            episodeID: 1,
            podcastNumber: 1,
            podcast: "P",
            episodeNumber: 2,
            title: "T",
            snippet: "an \u{1}aardvark\u{2} \u{1B}[2Jsays",
            at: nil
        )
        #expect(Render.snippet(hit, color: true) == "an \u{1B}[1maardvark\u{1B}[0m says")
        #expect(Render.snippet(hit, color: false) == "an aardvark says")
    }

    /// `queue` adds across podcasts and `new`, lists, moves, takes out and
    /// clears, refusing positions past its end; `play queue` of an empty one
    /// says how to fill it; `set podcast P speed` is listed with the rules.
    @Test func queueCommandsKeepTheQueueInTheLibrary() async throws {
        try await ShellHarness.run { h in
            let base = h.server.baseURL.absoluteString
            #expect(await h.run("play queue") == .failure)
            #expect(h.output.standardError.contains("the queue is empty"), "\(h.output.standardError)")
            #expect(
                await h.run("subscribe \(base)/feeds/listening.xml; subscribe \(base)/feeds/1386867488.xml") == .success
            )
            h.output.clear()
            #expect(await h.run("queue add 2:1-2; podcast 1; queue add 3,1; queue add 2:2") == .success)
            var out = h.output.standardOutput
            #expect(out.contains("queued 2 episodes; the queue has 4"), "\(out)")
            #expect(out.contains("queued 0 episodes (1 already queued); the queue has 4"), "\(out)")
            h.output.clear()
            #expect(await h.run("queue move 4 1; queue rm 2-3") == .success)
            out = h.output.standardOutput
            #expect(out.contains("moved 4 to 1"), "\(out)")
            #expect(out.contains("took 2 episodes out of the queue"), "\(out)")
            h.output.clear()
            #expect(await h.run("queue rm 3") == .failure)
            #expect(h.output.standardError.contains("no queue entry 3 (1-2)"), "\(h.output.standardError)")
            h.output.clear()
            #expect(await h.run("queue add x") == .failure)
            #expect(await h.run("set podcast 1 speed 1.5; set") == .success)
            #expect(h.output.standardOutput.contains("1 Tones for Listening: speed 1.5"), "\(h.output.standardOutput)")
            h.output.clear()
            #expect(await h.run("set podcast 1 speed 9") == .failure)
            #expect(h.output.standardError.contains("speed takes a number from 0.25 to 4"), "\(h.output.standardError)")
        }
        try await ShellHarness.run(json: true) { h in
            let base = h.server.baseURL.absoluteString
            #expect(
                await h.run("subscribe \(base)/feeds/listening.xml; queue add 1:2; queue add 1:1; queue") == .success
            )
            let last = h.output.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
            #expect(
                last.contains(
                    #""result":[{"position":1,"ref":"1:2","podcast":"Tones for Listening","title":"Tone 2: 8 seconds"},{"position":2,"ref":"1:1""#
                ),
                "\(last)"
            )
            #expect(await h.run("queue clear; queue") == .success)
            #expect(h.output.standardOutput.hasSuffix(#""result":[]}"# + "\n"), "\(h.output.standardOutput)")
        }
    }

    /// `set` keeps settings in the library, lists them, forgets one with `default`,
    /// and refuses a bad value naming it.
    @Test func setKeepsListsAndRefuses() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("set speed 1.5; set max-size 500M; set") == .success)
            var out = h.output.standardOutput
            #expect(out.contains("speed") && out.contains("1.5"), "\(out)")
            #expect(out.contains("max-size") && out.contains("500"), "\(out)")
            // A later shell of the same library has them.
            let later = h.sibling()
            #expect(await later.run("set") == .success)
            #expect(later.output.standardOutput.contains("1.5"), "\(later.output.standardOutput)")
            await later.shell.close()
            h.output.clear()
            #expect(await h.run("set speed default; set") == .success)
            out = h.output.standardOutput
            #expect(!out.contains("1.5"), "\(out)")
            h.output.clear()
            #expect(await h.run("set speed fast") == .failure)
            #expect(h.output.standardError.contains("fast"), "\(h.output.standardError)")
        }
    }

    /// A flag or variable wins over `set`, and what `set` lists is what the session
    /// uses: one rule for both.
    @Test func flagsAndVariablesWinOverSetAndSetSaysSo() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("set max-size 500M; set player cvlc; set rate-limit 2M") == .success)
            let flagged = Shell(
                configuration: Configuration(
                    endpoints: Endpoints(allAt: h.server.baseURL),
                    downloadDirectory: h.downloads,
                    maxConcurrent: 5,
                    maxFileSize: 64 << 20,
                    player: "mpv --no-video"
                ),
                console: Console(sink: CapturedOutput(), isTerminal: false, width: nil)
            )
            let session = flagged.session
            await session.services.downloads.applySettings()
            let shown = Dictionary(
                uniqueKeysWithValues: await session.services.library.effectiveSettings().map { ($0.setting, $0) }
            )
            #expect(shown[.maxSize]?.value == "64M" && shown[.maxSize]?.source == "--max-filesize")
            #expect(shown[.player]?.value == "mpv --no-video" && shown[.player]?.source == "FEEDSH_PLAYER")
            #expect(shown[.rateLimit]?.value == "2M" && shown[.rateLimit]?.source == "set")
            #expect(shown[.maxConcurrent]?.value == "5" && shown[.maxConcurrent]?.source == "--max-concurrent")
            #expect(session.services.downloads.engine.maxFileSize == 64 << 20)
            #expect(session.services.downloads.engine.limiter.rate == 2 << 20)
            #expect(await session.services.downloads.engine.maxConcurrent == 5)
            #expect(await session.services.listening.player() == PlayerCommand("mpv --no-video"))
            await flagged.close()
        }
    }
}

/// What `play` will do, decided by the session without playing.
@Suite("Listening service")
struct ListeningServiceTests {
    /// The downloaded file when there is one, else the stream; the saved position,
    /// unless asked from the start; the library episode that keeps it.
    @Test func thePlanFollowsTheDiskAndTheSavedPosition() async throws {
        try await ShellHarness.run { h in
            let feed = "\(h.server.baseURL.absoluteString)/feeds/listening.xml"
            #expect(await h.run("subscribe \(feed); get 2; wait") == .success)
            let session = h.shell.session
            let selector = try Selector.parse("1,2", forms: .downloads).get()
            let targets = try await session.targets(selector, verb: "play")
            let streamed = try await session.services.listening.playbackPlan(
                for: targets[0],
                start: .saved,
                synopsis: "play"
            )
            #expect(streamed.streaming && streamed.source.hasPrefix("http://"))
            #expect(streamed.start == 0 && streamed.episodeID != nil)
            // The long tone's feed names its chapters: mpv gets them, in time order.
            #expect(streamed.chapters.map(\.start) == [0, 30.5, 90])
            let file = try await session.services.listening.playbackPlan(
                for: targets[1],
                start: .saved,
                synopsis: "play"
            )
            #expect(!file.streaming && file.source == targets[1].request.file.final.path)
            // The second tone's chapters are malformed: it plays without them.
            #expect(file.chapters.isEmpty)

            let library = try session.library()
            try await library.savePosition(try #require(streamed.episodeID), seconds: 42)
            #expect(await h.run("podcast 1") == .success)
            let resumed = try await session.targets(selector, verb: "play")
            #expect(
                try await session.services.listening.playbackPlan(for: resumed[0], start: .saved, synopsis: "play")
                    .start == 42
            )
            #expect(
                try await session.services.listening.playbackPlan(for: resumed[0], start: .beginning, synopsis: "play")
                    .start == 0
            )
            #expect(
                try await session.services.listening.playbackPlan(for: resumed[0], start: .at(65), synopsis: "play")
                    .start == 65
            )
            #expect(
                try await session.services.listening.playbackPlan(for: resumed[0], start: .chapter(2), synopsis: "play")
                    .start == 30.5
            )
            await #expect(throws: ShellError.self) {
                _ = try await session.services.listening.playbackPlan(
                    for: resumed[0],
                    start: .chapter(4),
                    synopsis: "play"
                )
            }
            // The second tone's malformed chapters are an error when one was asked for.
            do {
                _ = try await session.services.listening.playbackPlan(
                    for: resumed[1],
                    start: .chapter(1),
                    synopsis: "play"
                )
                Issue.record("a chapter of a malformed chapters file was found")
            } catch {
                #expect("\(error)".contains("chapters[0].startTime"), "\(error)")
            }
            h.output.clear()
            #expect(await h.run("play 1:1 --at 1:05 --chapter 2") == .failure)
            #expect(h.output.standardError.contains("cannot go together"), "\(h.output.standardError)")
            h.output.clear()
            #expect(await h.run("play 1:1 --at soon") == .failure)
            #expect(h.output.standardError.contains("not 'soon'"), "\(h.output.standardError)")
        }
    }

    @Test(arguments: [("95", 95.0), ("12:34", 754.0), ("1:02:03", 3723.0), ("0:30.5", 30.5)])
    func playTimes(text: String, seconds: Double) {
        #expect(PlayStart.seconds(text) == seconds)
    }

    @Test(arguments: ["", "x", "1:60", "-5", "1:2:3:4", "1::2", "nan", "inf", "1e300", "170:00:00", "+5", "1e3", " 5"])
    func badPlayTimes(text: String) {
        #expect(PlayStart.seconds(text) == nil)
    }
}
