import FixtureServer
import Foundation
import Testing

/// The binary driven through its contract, against the project's fixture server.
@Suite("feedsh end to end")
struct ScriptModeTests {
    @Test func lookupAndEpisodesMatchTheTranscript() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let result = try await runFeedsh(
            ["-c", "lookup; episodes"],
            environment: ["FEEDSH_ITUNES_URL": server.baseURL.absoluteString]
        )
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(
            result.standardOutput == """
                Loopback Radio · feedsh fixtures
                Technology, Podcasts · 5 of 5 episodes loaded · id 1386867488
                #  Date         Length  Title
                1  2026-11-02    45:12  Ports, Sockets and the Art of Listening
                2  2026-10-26    52:35  Range Requests: Resuming What Was Lost
                3  2026-10-19    33:00  The ETag Whisperer
                4  2026-10-12  1:07:01  Backpressure, or Why Memory Stays Flat
                5  2026-10-05    41:07  Terminals, Escape Codes and Honest Output

                """
        )
    }

    /// `--help` gives every exit status; `serve-fixtures --help` every variable
    /// that points feedsh at it.
    @Test func helpNamesExitCodesAndFixtureVariables() async throws {
        let help = try await runFeedsh(["--help"])
        for code in ["0 when", "1 when", "2 for", "130", "129 on SIGHUP", "143 on SIGTERM"] {
            #expect(help.standardOutput.contains(code), "\(code)")
        }
        let serve = try await runFeedsh(["serve-fixtures", "--help"])
        for variable in ["FEEDSH_ITUNES_URL", "FEEDSH_POSTS_URL", "FEEDSH_MET_URL"] {
            #expect(serve.standardOutput.contains(variable), "\(variable)")
        }
    }

    @Test func demoWorksOfflineFromAnyDirectory() async throws {
        let result = try await runFeedsh(["--demo", "-c", "lookup; episodes"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first == "Loopback Radio · feedsh fixtures")
        #expect(lines.filter { $0.first?.isNumber == true }.count == 5)
        #expect(result.standardError.hasPrefix("demo: serving fixtures at http://127.0.0.1:"))
        // A newcomer is told what to type.
        #expect(result.standardError.contains("demo: try 'lookup', 'subscribe', 'episodes', 'get 1:1'"))
    }

    /// The demo's server and folder end with it: its downloads are not handed to
    /// a background feedsh that would download from nowhere into a folder gone;
    /// `detach` says why and the script's own wait finishes them.
    @Test func theDemoDoesNotHandItsDownloadsOver() async throws {
        let result = try await runFeedsh(["--demo", "--limit-rate", "2M", "-c", "lookup; get 1; detach"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("the demo's fixture server and folder end with this shell"))
        #expect(result.standardError.contains("waiting for 1 download to finish"))
        #expect((result.standardOutput + result.standardError).contains("downloaded 1 "))
    }

    /// The demo's own Podcast Index key: `search --index` signs its requests, which
    /// the fixture server checks; `open` reads the result's feed. Without a key,
    /// one line says how to get one.
    @Test func podcastIndexSearchThroughTheBinary() async throws {
        let result = try await runFeedsh(["--demo", "-c", "search --index tones; open 1; episodes"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("1         5  Tones for Listening · feedsh fixtures"))
        #expect(result.standardOutput.contains("Tone 5: 3 seconds"), "\(result.standardOutput)")
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let index = server.url("/api/1.0").absoluteString
        let noKey = try await runFeedsh(["--index-url", index, "-c", "search --index tones"])
        #expect(noKey.status == 1)
        #expect(noKey.standardError.hasPrefix("feedsh: search --index needs a Podcast Index API key"))
        #expect(noKey.standardError.filter { $0 == "\n" }.count == 1, "\(noKey.standardError)")
        let keyed = try await runFeedsh(
            ["--json", "-c", "search --index symbolic"],
            environment: [
                "FEEDSH_PODCASTINDEX_URL": index, "FEEDSH_PODCASTINDEX_KEY": FixtureServer.podcastIndexKey,
                "FEEDSH_PODCASTINDEX_SECRET": FixtureServer.podcastIndexSecret,
            ]
        )
        #expect(keyed.status == 0, "\(keyed.standardError)")
        #expect(keyed.standardOutput.contains(#""directory":"podcastindex""#), "\(keyed.standardOutput)")
        let request = try #require(server.requests.last)
        #expect(request.userAgent?.hasPrefix("feedsh/") == true && request.userAgent?.contains("(+https://") == true)
    }

    /// `--limit-rate` as curl spells it; a rate it cannot take is a usage error.
    @Test func limitRateCapsTheBinarysDownloads() async throws {
        for bad in ["0", "-1", "10Q"] {
            let result = try await runFeedsh(["--limit-rate=\(bad)", "-c", "help"])
            #expect(result.status == 2)
            #expect(result.standardError.contains("--limit-rate takes a rate of at least 1k a second"))
        }
        try await withServerAndFolder { server, root in
            let result = try await runFeedsh(
                ["--limit-rate", "8M", "-c", "lookup; get 1,3; wait; set"],
                environment: [
                    "FEEDSH_ITUNES_URL": server.baseURL.absoluteString,
                    "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("d").path,
                    "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                ]
            )
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("downloaded 3 "), "\(result.standardError)")
            let setting = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("rate-limit") }
            #expect(
                setting?.contains("8M") == true && setting?.contains("--limit-rate") == true,
                "\(result.standardOutput)"
            )
        }
    }

    @Test func closedPortFailsWithOneLineNamingTheAddress() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        let result = try await runFeedsh(
            ["-c", "lookup; episodes"],
            environment: ["FEEDSH_ITUNES_URL": "http://127.0.0.1:\(port)"]
        )
        #expect(result.status == 1)
        #expect(!result.signalled)
        #expect(result.standardError == "feedsh: cannot connect to 127.0.0.1:\(port): connection refused\n")
        #expect(result.standardOutput == "")
        withExtendedLifetime(closed) {}
    }

    @Test func flagBeatsEnvironment() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let result = try await runFeedsh(
            ["--itunes-url", server.baseURL.absoluteString, "-c", "lookup 1000000001 --limit 2"],
            environment: ["FEEDSH_ITUNES_URL": "http://127.0.0.1:9"]
        )
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("The Long Archive"))
    }

    @Test func scriptFileFailureNamesFileAndLine() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("s.feedsh")
        try "# a comment\nlookup\n\nnosuchcommand\nepisodes\n".write(to: script, atomically: true, encoding: .utf8)
        let result = try await runFeedsh(["--demo", "-f", script.path])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasSuffix(
                "\(script.path):4: unknown command 'nosuchcommand'; type 'help' for the list\n"
            )
        )
        #expect(!result.standardOutput.contains("#  Date"))
    }

    @Test func keepGoingContinuesAndExitsOne() async throws {
        let result = try await runFeedsh(["--demo", "--keep-going", "-c", "epsiodes; lookup; episodes"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("feedsh: unknown command 'epsiodes'; did you mean 'episodes'?\n"))
        #expect(result.standardOutput.contains("#  Date"))
    }

    @Test func commandsFromStandardInput() async throws {
        let result = try await runFeedsh(["--demo"], standardInput: "lookup 1000000002\nshow 99\nepisodes\n")
        #expect(result.status == 1)
        #expect(result.standardError.contains("<stdin>:2: no episode 99 (1-4); usage: show N|P:E\n"))
        #expect(result.standardError.contains("warning: skipped episode 4: its trackId is text, not a number\n"))
    }

    @Test(arguments: [
        ["--bogus"], ["-c", "help", "-f", "x"], ["--itunes-url", "ftp://example.com", "-c", "help"],
        ["serve-fixtures", "--port", "70000"],
    ])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let result = try await runFeedsh(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains("Error: "))
    }

    @Test func unreadableScriptExitsTwo() async throws {
        let result = try await runFeedsh(["-f", "/nonexistent/s.feedsh"])
        #expect(result.status == 2)
        #expect(result.standardError == "feedsh: cannot read /nonexistent/s.feedsh: No such file or directory\n")
    }

    /// Under -O a task-group shape lost every object that loaded and listed only the
    /// broken one (436107); `make test` runs this against the release binary.
    @Test func metSearchListsEveryObjectThatLoaded() async throws {
        let result = try await runFeedsh(["--demo", "--json", "-c", "met search cypress"])
        #expect(result.status == 0)
        let line = try #require(result.standardOutput.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let objects = try #require((object["result"] as? [String: Any])?["objects"] as? [[String: Any]])
        let loaded = objects.filter { $0["error"] == nil }.compactMap { $0["id"] as? Int }
        #expect(loaded.sorted() == [436101, 436103, 436109])
        #expect(objects.count == 4)
    }

    /// A length of 1e300 ms trapped the whole lookup (exit 132); now it reads as
    /// unknown, on the shipped binary too.
    @Test func hostileNumbersDoNotTrap() async throws {
        let result = try await runFeedsh(["--demo", "-c", "lookup 1000000004; episodes"])
        #expect(result.status == 0)
        #expect(!result.signalled)
        #expect(result.standardOutput.contains("Hostile Numbers"))
        #expect(result.standardOutput.contains("12:34  An honest length"))
        #expect(!result.standardOutput.contains("-2047687697"))
        #expect(
            result.standardError.contains("skipped episode 5: its trackId 1000400000001 is the same as episode 1's")
        )
    }

    @Test func helpAndVersionExitZero() async throws {
        let help = try await runFeedsh(["--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("--demo"))
        // The real usage: no subcommand is required.
        let usage = help.standardOutput.components(separatedBy: "USAGE:").last?.prefix { $0 != "\n" } ?? ""
        #expect(usage.contains("feedsh [options]") && !usage.contains("<subcommand>"))
        #expect(help.standardOutput.contains("feedsh [options] -c 'CMD; CMD'"))
        let version = try await runFeedsh(["--version"])
        #expect(version.status == 0)
        #expect(version.standardOutput == "0.1.0\n")
    }

    @Test func serveFixturesServesUntilInterrupted() async throws {
        let process = Process()
        process.executableURL = feedshBinary
        process.arguments = ["serve-fixtures", "--rate", "0"]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let line = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var bytes = Data()
                while let byte = try? stdout.fileHandleForReading.read(upToCount: 1), !byte.isEmpty,
                    byte != Data("\n".utf8)
                {
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(line.hasPrefix("http://127.0.0.1:"))
        let result = try await runFeedsh(
            ["-c", "lookup 1000000001 --limit 1"],
            environment: ["FEEDSH_ITUNES_URL": line]
        )
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("The Long Archive"))
        process.interrupt()
        #expect(await waitForExit(process, timeout: .seconds(10)))
    }
}
