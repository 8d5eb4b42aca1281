import FixtureServer
import Foundation
import Testing

/// The status line of download `tag` on a screen, if shown.
private func statusLine(_ screen: String, _ tag: String) -> String? {
    screen.split(separator: "\n").map(String.init).first { $0.hasPrefix("[\(tag)] ") }
}

private func lines(_ screen: String) -> [String] {
    screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

/// How many lines of `screen` satisfy `predicate`.
/// A screen's words, one space between each, wherever its lines broke.
private func wordsOf(_ screen: String) -> String {
    screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
}

private func count(_ screen: String, _ predicate: (String) -> Bool) -> Int {
    lines(screen).filter(predicate).count
}

/// The defects a new user met in a real terminal, each read off the screen.
extension TmuxTests {
    @Test func quitAndExitAskAndTheQuestionStaysUntilAnswered() async throws {
        try await TmuxSession.with(mediaRate: 300_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 2", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("↓1>") && statusLine($0, "2")?.contains("% of") == true }
            tmux.keys("quit", "Enter")
            let question = "1 download is running. Continue in the background, pause, or stay? [b/p/S]"
            try await tmux.waitForScreen { $0.hasSuffix(question) }
            // The progress redraws twice above it; the question is still the last line.
            for _ in 0..<2 {
                let before = statusLine(try await tmux.screen(), "2")
                try await tmux.waitForScreen { statusLine($0, "2") != before && $0.hasSuffix(question) }
            }
            tmux.keys("n", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("↓1>") }
            tmux.keys("exit", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix(question) }
            tmux.keys("p", "Enter")
            try await tmux.waitForExit()
            let part = tmux.downloads.appendingPathComponent("1386867488/1000700000002.mp3.part")
            #expect(FileManager.default.fileExists(atPath: part.path))
        }
    }

    /// `subscribe URL --user NAME` asks for the password on the terminal without
    /// echoing it, the spinner out of the way; the history file keeps the line
    /// without it, and a typed URL's password never reaches the history.
    @Test func aFeedPasswordIsAskedWithoutEcho() async throws {
        try await TmuxSession.with { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("subscribe \(tmux.base)/feeds/private.xml --user alice", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("password for alice at 127.0.0.1:") }
            tmux.keys(FixtureServer.privatePassword, "Enter")
            try await tmux.waitForScreen { $0.contains("subscribed to Members Only: 3 episodes") }
            #expect(!(try await tmux.screen()).contains(FixtureServer.privatePassword))
            let port = URL(string: tmux.base)?.port ?? 0
            tmux.keys("subscribe http://bob:hunter2@127.0.0.1:\(port)/feeds/private.xml", "Enter")
            try await tmux.waitForScreen { $0.contains("refused bob's password") }
            tmux.keys("quit", "Enter")
            try await tmux.waitForExit()
            let history = try String(
                contentsOf: tmux.home.appendingPathComponent(".local/state/feedsh/history"),
                encoding: .utf8
            )
            #expect(history.contains("--user\\040alice"), "\(history)")
            #expect(history.contains("bob@127.0.0.1"), "\(history)")
            #expect(!history.contains("hunter2") && !history.contains("p@ss"), "\(history)")
        }
    }

    /// `get all` of a 5 000-episode subscription at the prompt: the prompt comes
    /// back with every download queued (it took two minutes when every queued
    /// event refreshed the whole snapshot), and `cancel all` stops them.
    @Test func getAllOfFiveThousandGivesThePromptBack() async throws {
        try await TmuxSession.with(mediaRate: 1000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("subscribe \(tmux.base)/feeds/generate?n=5000&words=0", "Enter")
            try await tmux.waitForScreen(timeout: .seconds(60)) { $0.hasSuffix("Generated Feed of 5000>") }
            tmux.keys("get all", "Enter")
            // Far under the two minutes it once took, with room for a loaded machine.
            try await tmux.waitForScreen(timeout: .seconds(40)) {
                $0.contains("3 downloading, 4997 queued") && $0.hasSuffix("↓5000>")
            }
            tmux.keys("cancel all --yes", "Enter")
            try await tmux.waitForScreen(timeout: .seconds(15)) {
                $0.contains("5000 cancelled") && $0.hasSuffix("Generated Feed of 5000>")
            }
            tmux.keys("quit", "Enter")
            try await tmux.waitForExit()
        }
    }

    /// Quitting with `p` says what it paused, and the next shell lists it.
    @Test func quitWithPauseSaysWhatItPaused() async throws {
        try await TmuxSession.with(mediaRate: 300_000, jobControl: true) { tmux in
            try await tmux.startFeedshFromTheShell()
            tmux.keys("lookup; get 2", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("↓1>") && statusLine($0, "2")?.contains("% of") == true }
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("[b/p/S]") }
            tmux.keys("p", "Enter")
            try await tmux.waitForScreen {
                $0.contains("paused 1 download (2 at ") && $0.contains("'resume P:E' continues one")
                    && $0.hasSuffix("$")
            }
        }
    }

    @Test func ctrlZThenFgGivesTheEditorBack() async throws {
        try await TmuxSession.with(jobControl: true) { tmux in
            try await tmux.startFeedshFromTheShell()
            tmux.keys("epi")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> epi") }
            tmux.keys("C-z")
            try await tmux.waitForScreen { $0.contains("Stopped") && $0.hasSuffix("$") }
            tmux.keys("fg", "Enter")
            // The prompt and the half-typed line are drawn again...
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> epi") }
            // ...and keys reach the editor at once: Tab completes (line mode would not).
            tmux.keys("Tab")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> episodes") }
            tmux.keys("C-u", "help quit", "Enter")
            try await tmux.waitForScreen {
                $0.contains("usage: quit") && $0.hasSuffix("feedsh>")
            }
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("$") }
        }
    }

    @Test func waitShowsLiveProgressAndLeavesNoneBehind() async throws {
        try await TmuxSession.with(mediaRate: 700_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 1", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("↓1>") }
            tmux.keys("wait", "Enter")
            // No prompt while waiting: the progress is the last line, and it moves.
            try await tmux.waitForScreen { lines($0).last?.hasPrefix("[1] ") == true && $0.contains("% of") }
            let first = lines(try await tmux.screen()).last
            try await tmux.waitForScreen { lines($0).last?.hasPrefix("[1] ") == true && lines($0).last != first }
            try await tmux.waitForScreen(timeout: .seconds(30)) {
                $0.contains("downloaded 1 Ports, Sockets") && $0.hasSuffix("feedsh:Loopback Radio>")
            }
            let after = try await tmux.screen()
            #expect(statusLine(after, "1") == nil, "\(after)")
        }
    }

    @Test func resizeFollowsTheWidthAndCtrlLKeepsTheScrollback() async throws {
        try await TmuxSession.with(mediaRate: 200_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 1,2", "Enter")
            try await tmux.waitForScreen { statusLine($0, "1") != nil && statusLine($0, "2") != nil }
            tmux.keys("half typed")
            try tmux.resize(width: 50, height: 30)
            // Redrawn for the new width: one line each, no piece of an old line, and
            // one prompt with what was typed.
            try await tmux.waitForScreen { screen in
                let all = lines(screen)
                return all.filter { $0.hasPrefix("[1] ") }.count == 1 && all.filter { $0.hasPrefix("[2] ") }.count == 1
                    && all.allSatisfy { $0.count <= 50 }
                    && !all.contains { !$0.hasPrefix("[") && ($0.contains("ETA") || $0.contains("/s,")) }
                    && all.filter { $0.contains("↓2>") }.count == 1 && screen.hasSuffix("↓2> half typed")
            }
            try tmux.resize(width: 100, height: 30)
            try await tmux.waitForScreen { screen in
                let all = lines(screen)
                return all.filter { $0.contains("↓2>") }.count == 1 && screen.hasSuffix("↓2> half typed")
                    && all.filter { $0.hasPrefix("[1] ") }.count == 1
            }
            tmux.keys("C-u")
            tmux.keys("episodes", "Enter")
            try await tmux.waitForScreen { $0.contains("#  Date") && $0.hasSuffix("↓2>") }
            let table = lines(try await tmux.screen()).filter { $0.hasPrefix("3  2026") }
            #expect(table.count == 1 && table[0].count == 50 && table[0].hasSuffix("…"), "\(table)")
            tmux.keys("C-l")
            try await tmux.waitForScreen { lines($0).first?.hasPrefix("[1] ") == true && $0.hasSuffix("↓2>") }
            let scrollback = try tmux.historySize()
            for _ in 0..<3 {
                let before = statusLine(try await tmux.screen(), "1")
                try await tmux.waitForScreen { statusLine($0, "1") != before }
            }
            #expect(try tmux.historySize() == scrollback, "redraws after Ctrl-L must not scroll")
        }
    }

    @Test func longTextWrapsAtWordBoundaries() async throws {
        try await TmuxSession.with(width: 40) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("help get", "Enter")
            try await tmux.waitForScreen { $0.contains("usage: get") && $0.hasSuffix("feedsh>") }
            let screen = try await tmux.screen()
            let wide = count(screen) { $0.count > 40 }
            #expect(wide == 0)
            let words = Set(screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
            for word in ["--max-concurrent", "downloads", "continued,", "select", "episode", "queued."] {
                #expect(words.contains(word), "'\(word)' is broken across lines:\n\(screen)")
            }
            tmux.keys("lookup; show 1", "Enter")
            try await tmux.waitForScreen { $0.contains("file:") && $0.hasSuffix(">") }
            let shown = Set(
                try await tmux.screen().split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
            )
            for word in ["listening,", "examples", "machine."] {
                #expect(shown.contains(word), "'\(word)' is broken across lines")
            }
        }
    }

    @Test func listsTallerThanTheScreenGoThroughThePager() async throws {
        try await TmuxSession.with(height: 20) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup 1000000001 --limit 60", "Enter")
            try await tmux.waitForScreen { $0.contains("60 of 60 episodes loaded") && $0.hasSuffix(">") }
            tmux.keys("episodes", "Enter")
            // less -FRX waits with its ':' prompt on the last line.
            try await tmux.waitForScreen { lines($0).last == ":" && $0.contains("#  Date") }
            // Ctrl-C reaches the whole foreground group, feedsh too; the pager stays
            // until the reader quits it.
            tmux.keys("C-c")
            try await Task.sleep(for: .milliseconds(500))
            #expect(lines(try await tmux.screen()).last == ":")
            tmux.keys("q")
            try await tmux.waitForScreen { $0.hasSuffix(">") && lines($0).last != ":" }
            tmux.keys("episodes --limit 3", "Enter")
            try await tmux.waitForScreen {
                $0.contains("(3 of 60 episodes; --limit N shows more)") && $0.hasSuffix(">")
            }
            tmux.keys("C-l", "episodes Bridges", "Enter")
            try await tmux.waitForScreen { $0.contains("of 60 episodes match 'bridges')") && $0.hasSuffix(">") }
            let matches = try await tmux.screen().split(separator: "\n").filter { $0.contains("History of") }
            #expect(!matches.isEmpty && matches.allSatisfy { $0.contains("Bridges") })
        }
    }

    @Test func getAllSummarisesAndCancelAllAsksAboutEarlierSessions() async throws {
        try await TmuxSession.with(mediaRate: 200_000, jobControl: true) { tmux in
            try await tmux.startFeedshFromTheShell()
            tmux.keys("lookup; get 2", "Enter")
            try await tmux.waitForScreen { statusLine($0, "2")?.contains("% of") == true }
            tmux.keys("pause 2; downloads", "Enter")
            // `downloads` says where the file goes.
            try await tmux.waitForScreen { $0.contains("paused 2 at ") && $0.contains("1386867488/1000700000002.mp3") }
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("$") }
            let part = tmux.downloads.appendingPathComponent("1386867488/1000700000002.mp3.part")
            #expect(FileManager.default.fileExists(atPath: part.path))
            tmux.keys("clear; " + feedshBinary.path, "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get all", "Enter")
            // A line each for a selection of one, counts for `all`.
            try await tmux.waitForScreen { $0.contains("3 downloading, 2 queued") && $0.hasSuffix("↓5>") }
            tmux.keys("cancel all", "Enter")
            try await tmux.waitForScreen { $0.contains("5 cancelled") && $0.hasSuffix("feedsh:Loopback Radio>") }
            // Now one from an earlier session: it is asked about.
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("$") }
            try Data("partial".utf8).write(to: part)
            tmux.keys("clear; " + feedshBinary.path, "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 1; cancel all", "Enter")
            try await tmux.waitForScreen {
                $0.hasSuffix("Also delete 1 partial download left by earlier sessions? [y/N]")
            }
            tmux.keys("y", "Enter")
            try await tmux.waitForScreen {
                $0.contains("2 cancelled, 3 not downloading") && $0.hasSuffix("feedsh:Loopback Radio>")
            }
            #expect(!FileManager.default.fileExists(atPath: part.path))
        }
    }

    @Test func tabListsAlignedCurrentCandidatesWithoutFrozenProgress() async throws {
        try await TmuxSession.with(mediaRate: 200_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup 1000000001 --limit 12; get 1,2", "Enter")
            try await tmux.waitForScreen { statusLine($0, "1")?.contains("% of") == true && $0.hasSuffix("↓2>") }
            tmux.keys("get ", "Tab")
            try await tmux.waitForScreen { screen in
                let all = lines(screen)
                return all.contains { $0.hasPrefix(" 3  ") } && all.contains { $0.hasPrefix("12  ") }
            }
            for _ in 0..<2 {
                let before = statusLine(try await tmux.screen(), "1")
                try await tmux.waitForScreen { statusLine($0, "1") != before }
            }
            let screen = try await tmux.screen()
            let copies = count(screen) { $0.hasPrefix("[1] ") }
            #expect(copies == 1, "a frozen copy of the progress:\n\(screen)")
            tmux.keys("C-u", "pause ", "Tab")
            try await tmux.waitForScreen { screen in
                lines(screen).contains {
                    $0.hasPrefix("1  ")
                        && $0.range(of: #"\([1-9][0-9]?% downloading\)"#, options: .regularExpression) != nil
                }
            }
            tmux.keys("C-u", "get 3,", "Tab")
            try await tmux.waitForScreen { lines($0).contains { $0.hasPrefix(" 4  ") } && $0.hasSuffix("> get 3,") }
            tmux.keys("C-u", "met search x --medium Pai", "Tab")
            try await tmux.waitForScreen { $0.hasSuffix("> met search x --medium Paintings") }
        }
    }

    @Test func aSlowFetchSpinsAndCtrlCEndsItsLine() async throws {
        try await TmuxSession.with(itunesPath: "/fault/delay=4000") { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup", "Enter")
            try await tmux.waitForScreen { $0.range(of: "[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] lookup…", options: .regularExpression) != nil }
            tmux.keys("C-c")
            try await tmux.waitForScreen { screen in
                let all = lines(screen)
                guard let mark = all.lastIndex(where: { $0.hasPrefix("^C") }) else { return false }
                return all[mark] == "^C" && all.dropFirst(mark + 1).first == "interrupted"
                    && screen.hasSuffix("feedsh>")
            }
        }
    }

    @Test func dumbTerminalsGetNoColour() async throws {
        try await TmuxSession.with(jobControl: true) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("$") }
            tmux.keys(
                "\(feedshBinary.path) -c episodes 2>/dev/null; \(feedshBinary.path) -c 'lookup; episodes'",
                "Enter"
            )
            try await tmux.waitForScreen { $0.contains("#  Date") && $0.hasSuffix("$") }
            #expect(try tmux.screenWithEscapes().contains("\u{1B}[1m#  Date"))
            tmux.keys("clear; TERM=dumb \(feedshBinary.path) -c 'lookup; episodes'", "Enter")
            try await tmux.waitForScreen { $0.contains("#  Date") && $0.hasSuffix("$") }
            #expect(!(try tmux.screenWithEscapes().contains("\u{1B}[1m")))
        }
    }

    @Test func wideCharactersWrapWithoutStaleProgress() async throws {
        try await TmuxSession.with(mediaRate: 200_000, width: 60) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 1", "Enter")
            try await tmux.waitForScreen { statusLine($0, "1")?.contains("% of") == true }
            // 40 wide characters: 80 columns, so the line wraps.
            let typed = String(repeating: "\u{97F3}", count: 40)
            tmux.keys("# " + typed)
            try await tmux.waitForScreen { $0.contains(String(repeating: "\u{97F3}", count: 10)) }
            for _ in 0..<3 {
                let before = statusLine(try await tmux.screen(), "1")
                try await tmux.waitForScreen { statusLine($0, "1") != before }
            }
            let screen = try await tmux.screen()
            let progress = count(screen) { $0.contains("% of") }
            let prompts = count(screen) { $0.contains("↓1> ") }
            #expect(progress == 1, "stale progress lines:\n\(screen)")
            #expect(prompts == 1, "\(screen)")
        }
    }
}

extension TmuxTests {
    /// At 60 columns `bookmarks`, `find`, `set` and `downloads` cut titles and
    /// notes mid-word or to "th…": now what does not fit wraps under itself
    /// between words and every word is on the screen.
    @Test func sixtyColumnsKeepEveryWord() async throws {
        try await TmuxSession.with(mediaRate: 100_000, width: 60, height: 50) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("subscribe \(tmux.base)/feeds/1386867488.xml", "Enter")
            try await tmux.waitForScreen { $0.contains("subscribed to Loopback Radio") }
            let note = "a note that is fairly long so it must wrap somewhere on the screen"
            tmux.keys("bookmark 1:1 0:05 \(note)", "Enter")
            try await tmux.waitForScreen { $0.contains("b1: ") && $0.hasSuffix(">") }
            tmux.keys("C-l", "bookmarks; find ports; set", "Enter")
            try await tmux.waitForScreen { $0.contains("serve-password") && $0.hasSuffix(">") }
            let screen = try await tmux.screen()
            let widest = lines(screen).map(\.count).max() ?? 0
            #expect(widest <= 60, "\(screen)")
            // Only find's snippet has an ellipsis (where it starts and ends): no cell was cut.
            let cut = lines(screen).filter { $0.contains("…") && !$0.hasPrefix("    ") }
            #expect(cut.isEmpty, "cut:\n\(screen)")
            // The note goes on under itself in its column, every word kept.
            let rows = lines(screen)
            if let header = rows.firstIndex(where: { $0.contains("Note / words") }),
                let column = rows[header].range(of: "Note / words")?.lowerBound
            {
                let offset = rows[header].distance(from: rows[header].startIndex, to: column)
                let noteLines = rows[(header + 1)...].prefix { $0.count > offset && !$0.hasPrefix("f1") }
                #expect(noteLines.map { String($0.dropFirst(offset)) }.joined(separator: " ") == note, "\(screen)")
            } else {
                Issue.record("no bookmarks table:\n\(screen)")
            }
            #expect(wordsOf(screen).contains("Loopback Radio: Ports, Sockets and the Art of Listening"), "\(screen)")
            tmux.keys("C-l", "get 1:1; downloads", "Enter")
            try await tmux.waitForScreen { $0.contains("Status") && $0.hasSuffix(">") }
            let listed = try await tmux.screen()
            let widestListed = lines(listed).map(\.count).max() ?? 0
            #expect(widestListed <= 60, "\(listed)")
            #expect(wordsOf(listed).contains("Art of Listening"), "\(listed)")
        }
    }
}

extension TmuxTests {
    /// `downloads` in one shell lists this shell's downloads and the background
    /// feedsh's, of two podcasts, by `P:E` with their podcast; `pause`, `resume` and
    /// `cancel` reach each where it runs.
    @Test func downloadsAcrossTwoPodcastsAndTheBackground() async throws {
        try await TmuxSession.with(mediaRate: 300_000, width: 150) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys(
                "subscribe \(tmux.base)/feeds/1386867488.xml; subscribe \(tmux.base)/feeds/1000000001.xml",
                "Enter"
            )
            try await tmux.waitForScreen { $0.contains("subscribed to The Long Archive") }
            tmux.keys("get 1:1; detach; get 2:1", "Enter")
            try await tmux.waitForScreen {
                $0.contains("1 download continues in the background") && $0.contains("downloading 2:1: ")
                    && $0.hasSuffix("↓1>")
            }
            tmux.keys("downloads", "Enter")
            try await tmux.waitForScreen { screen in
                let rows = screen.split(separator: "\n").map(String.init)
                return rows.contains { $0.hasPrefix("1:1  background · ") && $0.contains("Loopback Radio") }
                    && rows.contains { $0.hasPrefix("2:1  ") && $0.contains("The Long Archive") }
            }
            tmux.keys("pause 1:1; pause 2:1", "Enter")
            try await tmux.waitForScreen {
                $0.contains("paused 1:1 at ") && $0.contains("(in the background)") && $0.contains("paused 2:1 at ")
            }
            tmux.keys("resume 1:1", "Enter")
            try await tmux.waitForScreen { $0.contains("resuming 1:1 at ") && $0.contains("in the background") }
            tmux.keys("cancel 1:1; downloads", "Enter")
            try await tmux.waitForScreen { screen in
                let rows = screen.split(separator: "\n").map(String.init)
                return screen.contains("cancelled 1:1 (in the background)")
                    && rows.contains { $0.hasPrefix("1:1  background · cancelled") }
                    && rows.contains { $0.hasPrefix("2:1  ") && $0.contains("% paused") }
            }
        }
    }
}

extension TmuxTests {
    /// In one shell, `delete` is seen by `episodes` and `get` downloads anew; a
    /// download paused there is resumed by `resume 1:1` from the next shell, which
    /// has no podcast loaded and says at start that one waits.
    @Test func deleteThenGetInOneShellAndResumePEWithNoPodcastLoaded() async throws {
        try await TmuxSession.with(mediaRate: 2_000_000, jobControl: true) { tmux in
            try await tmux.startFeedshFromTheShell()
            tmux.keys("subscribe \(tmux.base)/feeds/1386867488.xml; get 1; wait", "Enter")
            try await tmux.waitForScreen { $0.contains("downloaded 1 Ports") && $0.hasSuffix("Loopback Radio>") }
            tmux.keys("C-l")
            tmux.keys("delete 1; episodes", "Enter")
            try await tmux.waitForScreen { screen in
                screen.contains("deleted") && screen.hasSuffix("Loopback Radio>")
                    && lines(screen).contains { $0.hasPrefix("1  ") && !$0.contains("downloaded") }
            }
            tmux.keys("C-l")
            tmux.keys("get 1", "Enter")
            try await tmux.waitForScreen { statusLine($0, "1")?.contains("% of") == true }
            tmux.keys("pause 1", "Enter")
            try await tmux.waitForScreen { $0.contains("paused 1 at ") && $0.hasSuffix("Loopback Radio>") }
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("$") }
            tmux.keys("clear; " + feedshBinary.path, "Enter")
            try await tmux.waitForScreen {
                $0.contains("1 paused download: 'downloads' lists them") && $0.hasSuffix("feedsh>")
            }
            // Tab offers it by P:E, with no podcast loaded.
            tmux.keys("resume ", "Tab")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> resume 1:1") }
            tmux.keys("C-u")
            tmux.keys("resume 1:1; wait", "Enter")
            try await tmux.waitForScreen {
                $0.contains("resuming 1:1 at ") && $0.contains("downloaded 1:1 Ports") && $0.hasSuffix("feedsh>")
            }
        }
    }
}
