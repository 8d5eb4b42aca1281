import FixtureServer
import Foundation
import Testing

@testable import FeedShell

@Suite("search --index")
struct PodcastIndexCommandTests {
    @Test func searchOpenDownloadThenSubscribeKeepsTheFile() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("search --index tones") == .failure)
            var errors = h.output.standardError
            #expect(errors.contains("search --index needs a Podcast Index API key and secret"), "\(errors)")
            #expect(errors.contains("FEEDSH_PODCASTINDEX_KEY"), "\(errors)")
            h.output.clear()
            let setKeys = "set podcastindex-key \(FixtureServer.podcastIndexKey); set podcastindex-secret wrong"
            #expect(await h.run(setKeys) == .success)
            #expect(h.output.standardOutput.contains("podcastindex-secret is set"), "\(h.output.standardOutput)")
            #expect(!h.output.standardOutput.contains("wrong"), "\(h.output.standardOutput)")
            #expect(await h.run("search --index tones") == .failure)
            errors = h.output.standardError
            // FeedKit says what was refused; the shell says where keys come from.
            #expect(
                errors.contains(
                    "refused key 'FEEDSHDEMOKEY' (HTTP 401): check FEEDSH_PODCASTINDEX_KEY and FEEDSH_PODCASTINDEX_SECRET"
                ),
                "\(errors)"
            )
            #expect(await h.run("set podcastindex-secret \(FixtureServer.podcastIndexSecret)") == .success)
            h.output.clear()
            #expect(await h.run("set") == .success)
            var out = h.output.standardOutput
            #expect(out.contains("podcastindex-secret"), "\(out)")
            #expect(out.contains("(hidden)"), "\(out)")
            #expect(!out.contains(FixtureServer.podcastIndexSecret), "\(out)")
            h.output.clear()

            #expect(await h.run("search --index tones") == .success)
            out = h.output.standardOutput
            #expect(out.contains("1         5  Tones for Listening · feedsh fixtures"), "\(out)")
            // The feed's escape sequence and bell never reach the terminal.
            #expect(out.contains("Tones with an escape · feedsh fixtures"), "\(out)")
            #expect(!out.contains("\u{1B}") && !out.contains("\u{07}"), "\(out)")
            h.output.clear()
            #expect(await h.run("open 1; episodes") == .success)
            out = h.output.standardOutput
            #expect(out.contains("Tones for Listening · feedsh fixtures"), "\(out)")
            #expect(out.contains("/feeds/listening.xml"), "\(out)")
            #expect(out.contains("Tone 5: 3 seconds"), "\(out)")
            #expect(await h.run("get 5; wait") == .success)
            let folders = try FileManager.default.contentsOfDirectory(atPath: h.downloads.path)
                .filter { $0.hasPrefix("feed-") }
            #expect(folders.count == 1, "\(folders)")
            h.output.clear()
            // Subscribing to what was opened files it where the download went.
            #expect(await h.run("subscribe; episodes") == .success)
            out = h.output.standardOutput
            #expect(out.contains("subscribed to Tones for Listening: 5 episodes"), "\(out)")
            #expect(out.contains("downloaded"), "\(out)")
            h.output.clear()
            // Opened again, it is the subscription.
            #expect(await h.run("search --index tones; open 1; podcasts") == .success)
            out = h.output.standardOutput
            #expect(out.contains("1         5    0    1"), "\(out)")
        }
    }

    @Test func jsonNamesTheDirectoryAndFeed() async throws {
        try await ShellHarness.run(json: true) { h in
            let keys =
                "set podcastindex-key \(FixtureServer.podcastIndexKey); "
                + "set podcastindex-secret \(FixtureServer.podcastIndexSecret)"
            #expect(await h.run(keys) == .success)
            #expect(!h.output.standardOutput.contains(FixtureServer.podcastIndexSecret))
            h.output.clear()
            #expect(await h.run("search --index symbolic; search radio --limit 1") == .success)
            let lines = h.output.standardOutput.split(separator: "\n").map(String.init)
            let index = try #require(lines.first)
            #expect(index.contains(#""directory":"podcastindex""#), "\(index)")
            #expect(
                index.contains(#""feedURL":"\#(h.server.baseURL.absoluteString)/feeds/1386867488.xml""#),
                "\(index)"
            )
            #expect(lines.last?.contains(#""directory":"apple""#) == true, "\(lines)")
        }
    }
}

@Suite("History redaction")
struct HistoryRedactionTests {
    @Test func passwordsAndSecretsStayOutOfTheHistory() {
        #expect(
            Shell.forHistory("subscribe https://alice:p%40ss@members.example:8443/rss --user x")
                == "subscribe https://alice@members.example:8443/rss --user x"
        )
        #expect(
            Shell.forHistory("import a; subscribe http://u:v@a.example/f; subscribe http://b.example/g?x=@y")
                == "import a; subscribe http://u@a.example/f; subscribe http://b.example/g?x=@y"
        )
        let plain = "subscribe https://alice@members.example/rss"
        #expect(Shell.forHistory(plain) == plain)
        // A password no URL parser takes is still left out: whatever stands
        // between the user's colon and the @.
        for (typed, kept) in [
            ("subscribe 'https://alice:pa S@host.example/feed'", "subscribe 'https://alice@host.example/feed'"),
            ("subscribe https://alice:pa/S@host.example/feed", "subscribe https://alice@host.example/feed"),
            ("subscribe https://alice:pa#S@host.example/feed", "subscribe https://alice@host.example/feed"),
            ("subscribe https://alice:p@ss@host.example/feed", "subscribe https://alice@host.example/feed"),
            // A port is no password.
            ("subscribe http://b.example:8080/g?x=@y", "subscribe http://b.example:8080/g?x=@y"),
            ("sync login http://127.0.0.1:8080 alice", "sync login http://127.0.0.1:8080 alice"),
            // The URL's word ends at a blank (unquoted) or a ';': a later @ is not its.
            (
                "subscribe http://u:v@a.example/f; bookmark 1:1 0:30 me@x",
                "subscribe http://u@a.example/f; bookmark 1:1 0:30 me@x"
            ),
            ("subscribe \"http://u:v w@a.example/f\" x@y", "subscribe \"http://u@a.example/f\" x@y"),
        ] {
            #expect(Shell.forHistory(typed) == kept, "\(typed)")
        }
        #expect(Shell.forHistory("set podcastindex-secret abc") == nil)
        // However the line is typed: after another command, quoted, spaced, or
        // in a line that does not parse.
        for typed in [
            "help; set podcastindex-secret X", "set 'podcastindex-secret' X", "set   podcastindex-secret X",
            "lookup;set podcastindex-secret \"X", "SET PODCASTINDEX-SECRET X",
        ] {
            #expect(Shell.forHistory(typed) == nil, "\(typed)")
        }
        #expect(Shell.forHistory("set podcastindex-key abc") == "set podcastindex-key abc")
        #expect(Shell.forHistory("lookup 1386867488") == "lookup 1386867488")
    }
}
