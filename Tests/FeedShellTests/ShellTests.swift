import FeedKit
import FeedServices
import FixtureServer
import Foundation
import PlainText
import ShellKit
import Testing

@testable import FeedShell

/// A shell wired to a fresh fixture server, capturing what it prints.
struct ShellHarness {
    let server: FixtureServer
    let shell: Shell
    let output: CapturedOutput
    let downloads: URL

    static func run<T>(
        width: Int? = nil,
        mediaRate: Int? = nil,
        json: Bool = false,
        _ body: (ShellHarness) async throws -> T
    ) async throws -> T {
        let server = try await FixtureServer.start(.init(mediaRate: mediaRate))
        let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-\(UUID().uuidString)")
        let output = CapturedOutput()
        let shell = Shell(
            configuration: Configuration(
                endpoints: Endpoints(allAt: server.baseURL),
                downloadDirectory: downloads
            ),
            console: Console(sink: output, isTerminal: width != nil, width: width, json: json)
        )
        let harness = ShellHarness(server: server, shell: shell, output: output, downloads: downloads)
        defer { try? FileManager.default.removeItem(at: downloads) }
        do {
            let result = try await body(harness)
            await shell.close()
            await server.stop()
            return result
        } catch {
            await shell.close()
            await server.stop()
            throw error
        }
    }

    /// Another shell on the same server and download folder: a later run.
    func sibling() -> ShellHarness {
        let output = CapturedOutput()
        let shell = Shell(
            configuration: Configuration(
                endpoints: Endpoints(allAt: server.baseURL),
                downloadDirectory: downloads
            ),
            console: Console(sink: output, isTerminal: false, width: nil)
        )
        return ShellHarness(server: server, shell: shell, output: output, downloads: downloads)
    }

    /// Runs a line as typed at the prompt: failures are reported, nothing waits for
    /// background downloads.
    func type(_ line: String) async {
        _ = await shell.runInteractive(line: line)
    }

    func run(_ text: String, source: String? = nil, keepGoing: Bool = false) async -> ShellKit.ExitStatus {
        await shell.run(script: ScriptLines(text: text, source: source), keepGoing: keepGoing)
    }
}

@Suite("Shell")
struct ShellTests {
    @Test func lookupAndEpisodesPrintHeaderAndTable() async throws {
        try await ShellHarness.run { h in
            let status = await h.run("lookup; episodes")
            #expect(status == .success)
            let lines = h.output.standardOutput.split(separator: "\n")
            #expect(lines.first == "Loopback Radio · feedsh fixtures")
            #expect(lines.count == 2 + 1 + 5)
            #expect(lines[3].hasPrefix("1  2026-11-02    45:12  Ports, Sockets"))
            #expect(h.output.standardError.isEmpty)
        }
    }

    @Test func lookupAcceptsAnApplePodcastsURLAndLimit() async throws {
        try await ShellHarness.run { h in
            let status = await h.run(
                "lookup https://podcasts.apple.com/us/podcast/long/id1000000001 --limit 12; episodes"
            )
            #expect(status == .success)
            #expect(h.output.standardOutput.contains("12 of 60 episodes loaded"))
            #expect(h.server.requests.last?.query?.contains("limit=12") == true)
        }
    }

    @Test func stopsAtTheFirstFailureWithFileAndLine() async throws {
        try await ShellHarness.run { h in
            let status = await h.run("lookup\nnosuchcommand\nepisodes\n", source: "s.feedsh")
            #expect(status == .failure)
            #expect(h.output.standardError == "s.feedsh:2: unknown command 'nosuchcommand'; type 'help' for the list\n")
            #expect(!h.output.standardOutput.contains("#  Date"))
        }
    }

    @Test func keepGoingRunsTheRestAndStillFails() async throws {
        try await ShellHarness.run { h in
            let status = await h.run("show 1; lookup; episodes", keepGoing: true)
            #expect(status == .failure)
            #expect(
                h.output.standardError
                    == "feedsh: no podcast loaded: 'podcast N' loads subscription N ('podcasts' lists them), 'lookup' or "
                    + "'open N' one from the directory; or name the episode as P:E\n"
            )
            #expect(h.output.standardOutput.contains("#  Date"))
        }
    }

    @Test func quitStopsTheScriptSuccessfully() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("quit; nosuchcommand") == .success)
            #expect(h.output.standardError.isEmpty)
        }
    }

    /// Error lines wrap at word boundaries on a terminal, like the rest.
    @Test func errorLinesWrapAtWords() async throws {
        try await ShellHarness.run(width: 40) { h in
            #expect(await h.run("lookup; show 6") == .failure)
            let lines = h.output.standardError.split(separator: "\n")
            #expect(lines.count > 1, "\(h.output.standardError)")
            #expect(lines.allSatisfy { $0.count <= 40 })
            #expect(lines.joined(separator: " ") == "feedsh: no episode 6 (1-5); usage: show N|P:E")
        }
    }

    @Test func showValidatesItsNumber() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; show 6") == .failure)
            #expect(h.output.standardError == "feedsh: no episode 6 (1-5); usage: show N|P:E\n")
        }
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; show") == .failure)
            #expect(h.output.standardError == "feedsh: usage: show N|P:E\n")
        }
    }

    @Test func showPrintsSanitizedDescription() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup 1000000002; show 3") == .success)
            let out = h.output.standardOutput
            #expect(out.contains("Escape red and bell in a title\n"))
            #expect(out.contains("\u{2018}Curly\u{2019} quotes,  an OSC title change,\nand CRLF."))
            #expect(!out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x0D })
            #expect(h.output.standardError.contains("warning: skipped episode 4: its trackId is text, not a number\n"))
        }
    }

    @Test func failedLookupKeepsThePreviousPodcast() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; lookup 77", keepGoing: true) == .failure)
            #expect(h.output.standardError == "feedsh: no podcast with id 77\n")
            #expect(await h.shell.session.podcast?.id == 1_386_867_488)
        }
    }

    @Test func syntaxErrorsAreReported() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup 'open", source: "x") == .failure)
            #expect(h.output.standardError == "x:1: unterminated single quote\n")
        }
    }

    @Test func badReferencesAndOptionsAreUsageErrors() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup https://example.com/x") == .failure)
            #expect(
                h.output.standardError
                    == "feedsh: 'https://example.com/x' looks like a feed URL: 'subscribe https://example.com/x' reads it; lookup reads Apple's directory (a podcast ID such as 1386867488, or an Apple Podcasts URL); usage: lookup [ID|APPLE-PODCASTS-URL] [--limit N]\n"
            )
        }
    }

    @Test func helpListsEveryCommandAndExplainsOne() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("help; help lookup; help exit") == .success)
            let out = h.output.standardOutput
            for command in CommandRegistry.standard.commands {
                #expect(out.contains("  \(command.spec.name)"))
            }
            #expect(out.contains("usage: lookup [ID|APPLE-PODCASTS-URL] [--limit N]"))
            #expect(out.contains("aliases: exit"))
        }
    }

    @Test func episodesShowDownloadedFilesFromDisk() async throws {
        try await ShellHarness.run { h in
            let folder = h.downloads.appendingPathComponent("1386867488")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: folder.appendingPathComponent("1000700000002.mp3"))
            try Data(count: 1500).write(to: folder.appendingPathComponent("1000700000003.mp3.part"))
            #expect(await h.run("lookup; episodes") == .success)
            let rows = h.output.standardOutput.split(separator: "\n").map(String.init)
            #expect(rows[2].contains("  Status  "))
            #expect(rows[4].contains("  downloaded  ") && rows[4].hasSuffix("  Range Requests: Resuming What Was Lost"))
            #expect(rows[5].contains("  1.5 kB paused  The ETag Whisperer"))
            #expect(rows[3].hasSuffix("  Ports, Sockets and the Art of Listening"))
            #expect(!rows[3].contains("downloaded"))
        }
    }

    @Test func sourceRunsAFileAndNamesItsLineOnFailure() async throws {
        try await ShellHarness.run { h in
            let dir = h.downloads
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try "lookup 1000000001 --limit 3\nsource \(dir.path)/inner.feedsh\n".write(
                to: dir.appendingPathComponent("outer.feedsh"),
                atomically: true,
                encoding: .utf8
            )
            try "episodes\n\nshow 9\n".write(
                to: dir.appendingPathComponent("inner.feedsh"),
                atomically: true,
                encoding: .utf8
            )
            #expect(await h.run("source \(dir.path)/outer.feedsh") == .failure)
            #expect(h.output.standardOutput.contains("3 of 60 episodes loaded"))
            #expect(h.output.standardOutput.contains("#  Date"))
            #expect(
                h.output.standardError
                    == "feedsh: \(dir.path)/outer.feedsh:2: \(dir.path)/inner.feedsh:3: no episode 9 (1-3); usage: show N|P:E\n"
            )
        }
    }

    @Test func sourceRefusesCycles() async throws {
        try await ShellHarness.run { h in
            let dir = h.downloads
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let loop = dir.appendingPathComponent("loop.feedsh")
            try "source \(loop.path)\n".write(to: loop, atomically: true, encoding: .utf8)
            #expect(await h.run("source \(loop.path)") == .failure)
            #expect(h.output.standardError.contains("\(loop.path) is already being sourced (a cycle)"))
        }
    }

    @Test func searchThenOpenLoadsTheResult() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("search the history; open 1; episodes") == .success)
            let out = h.output.standardOutput
            #expect(out.contains("1        48  The History of Radio · Marconi Society"))
            #expect(out.contains("The History of Radio · Marconi Society\nHistory, Podcasts · 5 of 48 episodes loaded"))
            #expect(
                h.server.requests.contains { $0.path == "/search" && $0.query?.contains("term=the%20history") == true }
            )
        }
    }

    @Test func searchWithoutResultsSaysSoAndSucceeds() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("search zzzz") == .success)
            #expect(h.output.standardOutput == "no podcasts match 'zzzz'\n")
        }
        try await ShellHarness.run { h in
            #expect(await h.run("open 1") == .failure)
            #expect(h.output.standardError == "feedsh: no search results: run 'search TERM' first\n")
        }
    }

    @Test func postsAndPost() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("posts --user 2 --limit 2; post 3") == .success)
            let out = h.output.standardOutput
            #expect(out.hasPrefix(" #  User  Title\n11     2  "))
            #expect(out.contains("(2 of 10 posts; --limit N shows more)\n"))
            #expect(out.contains("post 3 by user 1\n"))
            #expect(out.contains("Comments (5):"))
            #expect(out.contains("<reader11@example.invalid>"))
        }
        try await ShellHarness.run { h in
            #expect(await h.run("post 101") == .failure)
            #expect(h.output.standardError == "feedsh: no post 101 (ids 1-100)\n")
        }
    }

    @Test func promptShowsTheLoadedPodcast() async throws {
        try await ShellHarness.run { h in
            #expect(await h.shell.prompt() == "feedsh> ")
            _ = await h.run("lookup 1000000001")
            #expect(await h.shell.prompt() == "feedsh:The Long Archive> ")
        }
    }

    @Test func titlesAreCutToTheTerminalWidth() async throws {
        try await ShellHarness.run(width: 40) { h in
            #expect(await h.run("lookup; episodes") == .success)
            for line in h.output.standardOutput.split(separator: "\n") {
                #expect(TextLayout.width(String(line)) <= 40, "\(line)")
            }
            #expect(h.output.standardOutput.contains("…"))
        }
    }
}

@Suite("Presentation")
struct PresentationTests {
    @Test func theStatusColumnIsBoundedSoTitlesStayReadable() async throws {
        var loaded: Podcast?
        try await ShellHarness.run { h in
            _ = await h.run("lookup")
            loaded = await h.shell.session.podcast
        }
        let podcast = try #require(loaded)
        let first = podcast.episodes[0]
        let statuses: [Int64: EpisodeStatus] = [
            first.id: .failed("HTTP 404 Not Found from http://127.0.0.1:8080/media/1386867488/1000700000001.mp3")
        ]
        let table = Render.episodes(podcast, statuses: statuses, width: 100, timeZone: TimeZone(identifier: "UTC")!)
        let row = try #require(table.split(separator: "\n").dropFirst().first)
        #expect(row.contains("Ports, Sockets and the Art of Listening"), "\(row)")
        #expect(row.contains("failed: HTTP 404 Not Fo…  Ports"))
    }

    @Test func episodesFilterByWordsAndLimit() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; episodes range; episodes --limit 2; episodes nothing-matches") == .success)
            let out = h.output.standardOutput
            #expect(
                out.contains(
                    "2  2026-10-26   52:35  Range Requests: Resuming What Was Lost\n(1 of 5 episodes match 'range')"
                )
            )
            #expect(out.contains("(2 of 5 episodes; --limit N shows more)"))
            #expect(out.contains("no episode titles contain 'nothing-matches'"))
        }
    }

    @Test func showSaysWhereTheFileGoes() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; show 2") == .success)
            let path = h.downloads.appendingPathComponent("1386867488/1000700000002.mp3").path
            #expect(h.output.standardOutput.contains("file:   \(path) (once downloaded)\n"))
        }
    }

    @Test func cancelAllInAScriptKeepsEarlierPartialsUnlessToldYes() async throws {
        try await ShellHarness.run { h in
            _ = await h.run("lookup")
            let part = h.downloads.appendingPathComponent("1386867488/1000700000003.mp3.part")
            try FileManager.default.createDirectory(
                at: part.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data("earlier".utf8).write(to: part)
            #expect(await h.run("lookup; cancel all") == .success)
            #expect(h.output.standardOutput.contains("4 not downloading, 1 kept from an earlier session"))
            #expect(FileManager.default.fileExists(atPath: part.path))
            #expect(await h.run("lookup; cancel all --yes") == .success)
            #expect(h.output.standardOutput.contains("4 not downloading, 1 cancelled"))
            #expect(!FileManager.default.fileExists(atPath: part.path))
        }
    }
}

extension Shell {
    /// A shell over services of its own: each test is its own composition root.
    convenience init(configuration: Configuration, console: Console) {
        self.init(services: Services(configuration: configuration), console: console)
    }
}
