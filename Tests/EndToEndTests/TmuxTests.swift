import FixtureServer
import Foundation
import Testing

/// feedsh in tmux: what a person would see on the screen.
@Suite("Interactive shell in tmux", .serialized)
struct TmuxTests {
    @Test func tabCompletesCommandsFlagsAndEpisodes() async throws {
        try await TmuxSession.with { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("epi", "Tab")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> episodes") }
            tmux.keys("C-u", "lookup --l", "Tab")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> lookup --limit") }
            tmux.keys("2", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh:Loopback Radio>") }
            tmux.keys("get ", "Tab")
            try await tmux.waitForScreen {
                $0.contains("1  Ports, Sockets and the Art of Listening")
                    && $0.contains("2  Range Requests: Resuming What Was Lost")
            }
        }
    }

    @Test func typedTextStaysIntactWhileProgressRedraws() async throws {
        try await TmuxSession.with(mediaRate: 1_000_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 1,2", "Enter")
            try await tmux.waitForScreen { $0.contains("\n[1] ") && $0.contains("\n[2] ") && $0.hasSuffix("↓2>") }
            let first = try await tmux.screen()
            tmux.keys("show 3 # typed while it redraws")
            // Let several redraws happen while the text sits in the line.
            try await Task.sleep(for: .milliseconds(1500))
            let screen = try await tmux.screen()
            #expect(screen != first, "the status area should have redrawn")
            let promptLines = screen.split(separator: "\n").filter { $0.contains("feedsh:Loopback Radio ↓2> ") }
            #expect(promptLines.count == 1, "\(screen)")
            #expect(promptLines.first?.hasSuffix("> show 3 # typed while it redraws") == true, "\(screen)")
            // The status lines sit right above the prompt.
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let prompt = try #require(lines.firstIndex { $0.contains("↓2> ") })
            #expect(lines[prompt - 1].hasPrefix("[2] ") && lines[prompt - 2].hasPrefix("[1] "), "\(screen)")
            tmux.keys("Enter")
            try await tmux.waitForScreen { $0.contains("episode 3 of 5") }
        }
    }

    @Test func ctrlCClearsTheLineAndStopsWaitButNotTheShell() async throws {
        try await TmuxSession.with(mediaRate: 500_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("some half-typed line")
            tmux.keys("C-c")
            // As a person would: type on once the ^C shows (keys sent before the
            // interrupt lands are part of the line it discards).
            try await tmux.waitForScreen { $0.contains("some half-typed line^C") }
            // (`help` alone is taller than this window, and would be paged.)
            tmux.keys("help quit", "Enter")
            try await tmux.waitForScreen { $0.contains("usage: quit") && $0.hasSuffix("feedsh>") }
            #expect(try await !tmux.screen().contains("some half-typed linehelp quit"))
            tmux.keys("lookup; get 1; wait", "Enter")
            try await tmux.waitForScreen { $0.contains("downloading 1:") }
            try await Task.sleep(for: .milliseconds(700))
            tmux.keys("C-c")
            try await tmux.waitForScreen { $0.contains("stopped waiting; the downloads go on") }
            try await tmux.waitForScreen { $0.hasSuffix("feedsh:Loopback Radio ↓1>") }
            tmux.keys("pause 1", "Enter")
            try await tmux.waitForScreen { $0.contains("paused 1 at ") }
            let part = tmux.downloads.appendingPathComponent("1386867488/1000700000001.mp3.part")
            #expect(FileManager.default.fileExists(atPath: part.path))
            tmux.keys("quit", "Enter")
            try await tmux.waitForExit()
            let history = try String(
                contentsOf: tmux.home.appendingPathComponent(".local/state/feedsh/history"),
                encoding: .utf8
            )
            #expect(history.contains("\nhelp\\040quit\n"))
            #expect(history.contains("pause\\0401"))
            #expect(!history.contains("some"))
        }
    }

    /// Ctrl-D asks like `quit`; `b` hands the download to a background feedsh,
    /// which finishes it after the shell has gone.
    @Test func ctrlDWithDownloadsAsksAndBackgroundFinishesThem() async throws {
        try await TmuxSession.with(mediaRate: 1_000_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 2", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("↓1>") }
            tmux.keys("C-d")
            let question = "1 download is running. Continue in the background, pause, or stay? [b/p/S]"
            try await tmux.waitForScreen { $0.hasSuffix(question) }
            tmux.keys("Enter")
            try await tmux.waitForScreen { $0.hasSuffix("↓1>") }
            tmux.keys("C-d")
            try await tmux.waitForScreen { $0.hasSuffix(question) }
            tmux.keys("b", "Enter")
            try await tmux.waitForExit()
            let file = tmux.downloads.appendingPathComponent("1386867488/1000700000002.mp3")
            let deadline = ContinuousClock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: file.path), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let expected = SyntheticMedia(key: "1386867488/1000700000002.mp3").allBytes
            #expect(try Data(contentsOf: file) == Data(expected))
        }
    }
}

extension TmuxTests {
    /// The quit question counts the downloads running now; Ctrl-C withdraws it
    /// (the shell stays) leaving no frozen progress line; and when the last
    /// download ends while it is asked, there is nothing left to ask: feedsh quits.
    @Test func theQuitQuestionFollowsTheDownloadsAndCtrlCLeavesNoFrozenLine() async throws {
        try await TmuxSession.with(mediaRate: 1_000_000) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("lookup; get 1,2", "Enter")
            try await tmux.waitForScreen { $0.contains("\n[1] ") && $0.contains("\n[2] ") && $0.hasSuffix("↓2>") }
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen {
                $0.hasSuffix("2 downloads are running. Continue in the background, pause, or stay? [b/p/S]")
            }
            tmux.keys("C-c")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh:Loopback Radio ↓2>") }
            // Let the progress redraw a few times: one status line per download, right
            // above the prompt, and none left behind above the question.
            try await Task.sleep(for: .milliseconds(800))
            let screen = try await tmux.screen()
            let rows = screen.split(separator: "\n").map(String.init)
            let first = rows.filter { $0.hasPrefix("[1] ") }.count
            let second = rows.filter { $0.hasPrefix("[2] ") }.count
            let aboveThePrompt = rows.dropLast().last ?? ""
            #expect(first == 1 && second == 1, "\(screen)")
            #expect(aboveThePrompt.hasPrefix("[2] "), "\(screen)")
            tmux.keys("pause 2", "Enter")
            try await tmux.waitForScreen { $0.contains("paused 2 at ") && $0.hasSuffix("↓1>") }
            tmux.keys("quit", "Enter")
            try await tmux.waitForScreen {
                $0.hasSuffix("1 download is running. Continue in the background, pause, or stay? [b/p/S]")
            }
            // Download 1 (6.6 MB at 1 MB/s) ends while the question waits.
            try await tmux.waitForExit(timeout: .seconds(30))
            let file = tmux.downloads.appendingPathComponent("1386867488/1000700000001.mp3")
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func nonASCIIIsEditedByCharacters() async throws {
        try await TmuxSession.with { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("help caf\u{E9} \u{97F3}\u{58F0}")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> help caf\u{E9} \u{97F3}\u{58F0}") }
            tmux.keys("BSpace")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> help caf\u{E9} \u{97F3}") }
            tmux.keys("BSpace", "BSpace", "BSpace")
            try await tmux.waitForScreen { $0.hasSuffix("feedsh> help caf") }
        }
    }
}

/// One feedsh in its own tmux server, against its own fixture server.
struct TmuxSession {
    let socket: String
    let home: URL
    let downloads: URL
    /// The fixture server's root, when the session has one.
    var base = ""

    /// feedsh against a fixture server of its own, in a `width` × `height` window;
    /// `environment` adds or overrides variables (`TERM=dumb`). With `jobControl`,
    /// an interactive bash runs feedsh, so that Ctrl-Z and `fg` work.
    static func with(
        mediaRate: Int? = nil,
        environment: [String] = [],
        width: Int = 100,
        height: Int = 30,
        jobControl: Bool = false,
        itunesPath: String = "",
        _ body: (TmuxSession) async throws -> Void
    ) async throws {
        let server = try await FixtureServer.start(.init(mediaRate: mediaRate))
        do {
            try await with(
                width: width,
                height: height,
                command: { home in
                    let settings =
                        [
                            "FEEDSH_ITUNES_URL=\(server.baseURL.absoluteString)\(itunesPath)",
                            "FEEDSH_DOWNLOAD_DIR=\(home.appendingPathComponent("downloads").path)",
                        ] + environment
                    if jobControl {
                        return settings + ["PS1=$ ", "bash", "--norc", "--noprofile", "-i"]
                    }
                    return settings + [feedshBinary.path]
                },
                { session in
                    var session = session
                    session.base = server.baseURL.absoluteString
                    try await body(session)
                }
            )
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Runs `command` (environment assignments, then the program and its arguments,
    /// given the session's home) in a new tmux server with a clean environment.
    static func with(
        width: Int = 100,
        height: Int = 30,
        command: (URL) -> [String],
        _ body: (TmuxSession) async throws -> Void
    ) async throws {
        let home = try temporaryDirectory()
        let session = TmuxSession(
            socket: "feedsh-test-\(UUID().uuidString.prefix(8))",
            home: home,
            downloads: home.appendingPathComponent("downloads")
        )
        // Nothing inherited from the test runner (NO_COLOR, PAGER, ...).
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let environment = ["PATH=\(path)", "HOME=\(home.path)", "TERM=xterm-256color", "LANG=C.UTF-8", "TZ=UTC"]
        let line = (["env", "-i"] + environment + command(home)).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
        // The tmux server this starts would inherit a pipe for its output and keep
        // it open: nothing is captured here.
        try session.tmux(["new-session", "-d", "-x", String(width), "-y", String(height), line], capture: false)
        do {
            try await body(session)
        } catch {
            print("screen at failure:\n\((try? await session.screen()) ?? "(none)")")
            session.kill()
            try? FileManager.default.removeItem(at: home)
            throw error
        }
        session.kill()
        try? FileManager.default.removeItem(at: home)
    }

    /// Runs a tmux command on this session's server. Through popen, not Process:
    /// the tmux server that `new-session` forks keeps inherited descriptors open, and
    /// Foundation's Process then never sees the client finish.
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
        let quoted = (["tmux", "-L", socket] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        let command = quoted.joined(separator: " ") + (capture ? " 2>/dev/null" : " >/dev/null 2>&1")
        guard let stream = popen(command, "r") else { throw POSIXError(.EIO) }
        var output = Data()
        if capture {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = fread(&buffer, 1, buffer.count, stream)
                if count <= 0 { break }
                output.append(contentsOf: buffer[0..<count])
            }
        }
        pclose(stream)
        return String(decoding: output, as: UTF8.self)
    }

    /// Sends keys as tmux names them: literal text, or `Enter`, `Tab`, `C-c`, ...
    func keys(_ keys: String...) {
        for key in keys {
            let named = ["Enter", "Tab", "C-c", "C-d", "C-u", "C-z", "C-l", "BSpace"].contains(key)
            _ = try? tmux(["send-keys", "-t", "0"] + (named ? [key] : ["-l", key]))
        }
    }

    /// The visible screen, trailing blank lines removed (tmux drops trailing spaces,
    /// so a prompt shows as `feedsh>`).
    func screen() async throws -> String {
        let text = try tmux(["capture-pane", "-p", "-t", "0"])
        return text.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }

    func waitForScreen(timeout: Duration = .seconds(20), _ condition: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(try await screen()) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out; the screen shows:\n\(try await screen())")
        throw CancellationError()
    }

    /// The screen with its escape sequences (colours and styles).
    /// In a `jobControl` session: waits for bash's prompt, runs feedsh there and
    /// waits for its prompt (when feedsh exits, bash's prompt stays on the screen).
    func startFeedshFromTheShell() async throws {
        try await waitForScreen { $0.hasSuffix("$") }
        keys(feedshBinary.path, "Enter")
        try await waitForScreen { $0.hasSuffix("feedsh>") }
    }

    func screenWithEscapes() throws -> String {
        try tmux(["capture-pane", "-p", "-e", "-t", "0"])
    }

    /// Lines pushed into the scrollback so far.
    func historySize() throws -> Int {
        Int(
            try tmux(["display-message", "-p", "-t", "0", "#{history_size}"]).trimmingCharacters(
                in: .whitespacesAndNewlines
            )
        )
            ?? -1
    }

    /// Resizes the window, as a person dragging the terminal's edge does.
    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "0", "-x", String(width), "-y", String(height)], capture: false)
    }

    /// Waits until feedsh has exited (tmux then has no session left).
    func waitForExit(timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? tmux(["list-sessions"]))?.isEmpty ?? true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("feedsh did not exit")
    }

    func kill() {
        _ = try? tmux(["kill-server"], capture: false)
    }
}
