import Assistant
import FeedServices
import Foundation
import MCP
import Testing

@testable import FeedShell

/// Smart playlists through the shell and mcp, over one library.
@Suite("Playlist commands")
struct PlaylistCommandTests {
    /// `playlist add`, `playlists`, `playlist NAME` (text and JSON), `playlist rm`;
    /// bad words and names are refused and change nothing; a name that is none
    /// names the ones there are, and asking makes no library on a new machine.
    @Test func savedListedEvaluatedAndRemoved() async throws {
        try await ShellHarness.run { h in
            let base = h.server.baseURL.absoluteString
            #expect(await h.run("playlist short") == .failure)
            #expect(h.output.standardError.contains("no playlist 'short': there are none"), "\(h.output.standardError)")
            #expect(h.shell.session.services.library.opened == nil)
            #expect(await h.run("subscribe \(base)/feeds/listening.xml") == .success)
            h.output.clear()
            #expect(await h.run("playlist add short unplayed shorter:10s sort:longest limit:2") == .success)
            #expect(
                h.output.standardOutput.contains(
                    "saved playlist short (unplayed shorter:10s sort:longest limit:2): 2 episodes now"
                ),
                "\(h.output.standardOutput)"
            )
            h.output.clear()
            #expect(await h.run("playlist short") == .success)
            var out = h.output.standardOutput
            #expect(out.contains("short (unplayed shorter:10s sort:longest limit:2): 2 episodes"), "\(out)")
            #expect(out.contains("1  1:2"), "\(out)")
            #expect(out.contains("2  1:3"), "\(out)")
            // Refused, each naming what would do; the playlist is as it was.
            h.output.clear()
            #expect(await h.run("playlist add short unheard") == .failure)
            #expect(h.output.standardError.contains("'unheard' is not a filter word; they are unplayed"))
            #expect(await h.run("playlist add short shorter:soon") == .failure)
            #expect(h.output.standardError.contains("shorter takes a length such as 20m"))
            #expect(await h.run("playlist add a/b new") == .failure)
            #expect(h.output.standardError.contains("'a/b' is not a playlist name"))
            #expect(await h.run("playlist add") == .failure)
            h.output.clear()
            #expect(await h.run("playlists") == .success)
            out = h.output.standardOutput
            #expect(out.contains("short         2  unplayed shorter:10s sort:longest limit:2"), "\(out)")
            // Marking one played moves the list on: evaluated when used.
            #expect(await h.run("mark played 1:2") == .success)
            h.output.clear()
            #expect(await h.run("playlist short") == .success)
            #expect(h.output.standardOutput.contains("1  1:3"), "\(h.output.standardOutput)")
            #expect(h.output.standardOutput.contains("2  1:4"), "\(h.output.standardOutput)")
            // mcp's tools give the same values.
            let tools = AssistantTools(services: h.shell.session.services, allowChanges: false)
            let listed = await tools.call("playlists", [:])
            let playlists = listed.structuredContent?.objectValue?["playlists"]?.arrayValue ?? []
            #expect(playlists.first?.objectValue?["count"]?.intValue == 2, "\(listed.content)")
            let one = await tools.call("playlist", ["name": .string("SHORT")])
            let refs = one.structuredContent?.objectValue?["episodes"]?.arrayValue?.map {
                $0.objectValue?["ref"]?.stringValue
            }
            #expect(refs == ["1:3", "1:4"], "\(one.content)")
            let unknown = await tools.call("playlist", ["name": .string("long")])
            #expect(unknown.isError == true)
            #expect("\(unknown.content)".contains("there are short"), "\(unknown.content)")
            h.output.clear()
            #expect(await h.run("playlist rm short; playlists") == .success)
            #expect(h.output.standardOutput.contains("removed playlist short"))
            #expect(h.output.standardOutput.contains("no playlists: 'playlist add NAME FILTER...' saves one"))
            #expect(await h.run("playlist rm short") == .failure)
        }
    }

    /// `get playlist NAME` downloads what it holds; an empty one says so and
    /// succeeds (a cron line); `play playlist` of one that is none fails.
    @Test func getPlaylistDownloadsWhatItHolds() async throws {
        try await ShellHarness.run(json: true) { h in
            let base = h.server.baseURL.absoluteString
            #expect(
                await h.run("subscribe \(base)/feeds/listening.xml; playlist add tiny shorter:5s sort:shortest")
                    == .success
            )
            h.output.clear()
            #expect(await h.run("get playlist tiny; wait") == .success)
            let lines = h.output.standardOutput.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let got = lines.first { $0["command"] as? String == "get" }?["result"] as? [[String: Any]] ?? []
            #expect(got.map { $0["number"] as? String } == ["1:4", "1:5", "1:3"], "\(h.output.standardOutput)")
            #expect(await h.run("playlist add none longer:1h; get playlist none") == .success)
            #expect(await h.run("play playlist missing") == .failure)
            #expect(await h.run("get playlist") == .failure)
        }
    }
}
