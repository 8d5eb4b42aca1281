import FixtureServer
import Foundation
import Testing

@testable import FeedShell

/// `P:E` and stable subscription numbers, in process.
@Suite("Addressing")
struct AddressingTests {
    /// With another subscription loaded (the last one subscribed), `1:1` still
    /// names episode 1 of subscription 1.
    @Test func episodesOfAnySubscription() async throws {
        try await ShellHarness.run { h in
            let base = h.server.baseURL.absoluteString
            #expect(await h.run("subscribe 1386867488; subscribe \(base)/feeds/paged.xml") == .success)
            h.output.clear()
            #expect(await h.run("get 1:1; wait; show 1:1") == .success, "\(h.output.standardError)")
            #expect(h.output.standardError.contains("downloaded 1:1 Ports, Sockets"))
            #expect(h.output.standardOutput.contains("1386867488/1000700000001.mp3\n"))
            #expect(await h.run("mark played 2:1-2") == .success)
            #expect(h.output.standardOutput.contains("marked 2 episodes played"))
            #expect(await h.run("unsubscribe 1; podcast 2") == .success)
            #expect(h.output.standardOutput.contains("Paged Feed"))
            h.output.clear()
            #expect(await h.run("get 1:1") == .failure)
            #expect(h.output.standardError.hasPrefix("feedsh: no subscription 1 (2)"), "\(h.output.standardError)")
            // `podcast N` reads subscription N alone; one it does not name reads
            // them all, to say which numbers there are.
            h.output.clear()
            #expect(await h.run("podcast 1") == .failure)
            #expect(h.output.standardError.hasPrefix("feedsh: no subscription 1 (2)"), "\(h.output.standardError)")
            h.output.clear()
            #expect(await h.run("podcast x") == .failure)
            #expect(h.output.standardError.hasPrefix("feedsh: no subscription x (2)"), "\(h.output.standardError)")
        }
    }

    /// With no podcast loaded, `pause all` and `resume all` act on every
    /// download `downloads` lists, of every podcast, and name each by its `P:E`;
    /// `get new` names what it starts by `P:E` too, with its podcast.
    @Test func pauseAndResumeAllReachEveryPodcastWithNoneLoaded() async throws {
        try await ShellHarness.run(mediaRate: 100_000) { h in
            let base = h.server.baseURL.absoluteString
            #expect(await h.run("subscribe 1386867488; subscribe \(base)/feeds/paged.xml") == .success)
            let other = h.sibling()
            defer { Task { await other.shell.close() } }
            await other.type("get 1:1; get 2:1")
            try await waitUntil {
                await other.shell.session.services.downloads.engine.all().filter { $0.state.isActive }.count == 2
            }
            await other.type("pause all")
            #expect(other.output.standardOutput.contains("2 paused"), "\(other.output.standardOutput)")
            #expect(!other.output.standardError.contains("no podcast loaded"), "\(other.output.standardError)")
            other.output.clear()
            await other.type("resume all")
            #expect(other.output.standardOutput.contains("2 resumed"), "\(other.output.standardOutput)")
            other.output.clear()
            await other.type("downloads")
            let rows = other.output.standardOutput.split(separator: "\n")
            #expect(rows.contains { $0.hasPrefix("1:1 ") && $0.contains("Loopback Radio") }, "\(rows)")
            #expect(rows.contains { $0.hasPrefix("2:1 ") && $0.contains("Paged Feed") }, "\(rows)")
            await other.type("cancel all --yes")
            other.output.clear()
            await other.type("pause all")
            #expect(other.output.standardOutput.contains("no downloads to pause"), "\(other.output.standardOutput)")
        }
    }

    /// After `delete`, the same shell agrees with the disk: `episodes`, `show`
    /// and `downloads` no longer say downloaded, and `get` downloads it again.
    @Test func deleteIsSeenByEveryTableOfTheSameShell() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup --limit 2; get 1; wait; delete 1") == .success)
            h.output.clear()
            #expect(await h.run("episodes; downloads; show 1") == .success)
            let out = h.output.standardOutput
            #expect(!out.contains("downloaded  Ports"), "\(out)")
            #expect(out.contains("no downloads"))
            #expect(out.contains("(once downloaded)"))
            h.output.clear()
            #expect(await h.run("get 1; wait") == .success)
            #expect(h.output.standardError.contains("downloaded 1 Ports, Sockets"), "\(h.output.standardError)")
        }
    }

    /// `podcasts`' downloaded count is what `episodes` shows: files on disk count,
    /// also those downloaded before the subscription existed.
    @Test func downloadedCountsComeFromTheDisk() async throws {
        try await ShellHarness.run(json: true) { h in
            #expect(await h.run("lookup --limit 3; get 1,2; wait; subscribe 1386867488") == .success)
            h.output.clear()
            #expect(await h.run("podcasts") == .success)
            let line = try #require(h.output.standardOutput.split(separator: "\n").last)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let rows = try #require(object?["result"] as? [[String: Any]])
            #expect(rows.first?["downloadedCount"] as? Int == 2, "\(line)")
        }
    }

    /// `downloads --json` in the contract's shape: ref (P:E), podcast, title, state,
    /// bytes, total, holder.
    @Test func downloadsSpeakTheContract() async throws {
        try await ShellHarness.run(json: true) { h in
            #expect(await h.run("subscribe 1386867488; get 2; wait") == .success)
            h.output.clear()
            #expect(await h.run("downloads") == .success)
            let line = try #require(h.output.standardOutput.split(separator: "\n").last)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let row = try #require((object?["result"] as? [[String: Any]])?.first)
            #expect(row["ref"] as? String == "1:2")
            #expect(row["podcast"] as? String == "Loopback Radio")
            #expect((row["title"] as? String)?.hasPrefix("Range Requests") == true)
            #expect(row["state"] as? String == "completed")
            #expect(row["holder"] as? String == "here")
            #expect((row["bytes"] as? Int ?? 0) > 0 && row["bytes"] as? Int == row["total"] as? Int)
        }
    }

    /// A feed-only episode's id has 63 bits: every JSON id is text or below
    /// 2^53, and an episode's id is its download's.
    @Test func jsonIdsStayExact() async throws {
        try await ShellHarness.run(json: true) { h in
            let feed = h.server.baseURL.absoluteString + "/feeds/paged.xml"
            #expect(await h.run("subscribe \(feed); get 1:1; wait") == .success)
            h.output.clear()
            #expect(await h.run("podcast 1; episodes --limit 1; downloads") == .success)
            let lines = h.output.standardOutput.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let podcast = try #require(
                lines.first { $0["command"] as? String == "podcast" }?["result"] as? [String: Any]
            )
            let episode = try #require(
                (lines.first { $0["command"] as? String == "episodes" }?["result"] as? [[String: Any]])?.first
            )
            let download = try #require(
                (lines.first { $0["command"] as? String == "downloads" }?["result"] as? [[String: Any]])?.first
            )
            let id = try #require(episode["id"] as? String)
            // A feed key, named as its file is: the id is the file's name.
            #expect(id.hasPrefix("feed-"), "a feed key: \(id)")
            #expect(download["id"] as? String == id)
            let path = try #require(download["path"] as? String)
            #expect(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent == id)
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
            #expect(podcast["id"] as? String == folder)
            h.output.clear()
            #expect(await h.run("show 1:1") == .success)
            #expect(h.output.standardOutput.contains("\"id\":\"\(id)\""), "\(h.output.standardOutput)")
            // Whatever is a number is exact as a double.
            func numbers(_ value: Any) -> [Int] {
                switch value {
                case let object as [String: Any]: object.values.flatMap(numbers)
                case let array as [Any]: array.flatMap(numbers)
                case let number as Int: [number]
                default: []
                }
            }
            #expect(lines.flatMap(numbers).allSatisfy { abs($0) < 1 << 53 })
        }
    }
}

/// A subscription's episodes read from the library a page at a time.
@Suite("Episodes a page at a time")
struct PagedEpisodesTests {
    /// 1,000 episodes (four pages): every number reads the episode `episodes`
    /// lists there, across page boundaries and back; the marks of one far from
    /// the pages kept are found; selectors and `show` reach the last one.
    @Test func aLongSubscriptionReadsEveryEpisodeWhereItIsListed() async throws {
        try await ShellHarness.run(json: true) { h in
            #expect(
                await h.run("subscribe \(h.server.baseURL.absoluteString)/feeds/generate?n=1000&words=0") == .success
            )
            let session = h.shell.session
            let podcast = try #require(await session.podcast)
            #expect(podcast.episodes.count == 1000)
            #expect(podcast.episodes.source != nil)
            // Newest first, as the feed numbers them backwards: episode N is item 1001 - N.
            for number in [1, 256, 257, 512, 513, 1000, 3, 700, 255] {
                #expect(podcast.episodes[number - 1].title == "Generated item \(1001 - number)")
            }
            // Nine pages read since: the first is no longer kept, its marks are still found.
            for number in stride(from: 1, through: 1000, by: 120) { _ = podcast.episodes[number - 1] }
            let first = podcast.episodes[0]
            let marks = await session.marks
            #expect(marks[first.id]?.guid == "generated-1000")
            #expect(marks[-42] == nil)
            h.output.clear()
            #expect(await h.run("show 1000; episodes --limit 2") == .success)
            let lines = h.output.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first?.contains("\"title\":\"Generated item 1\"") == true, "\(lines.first ?? "")")
            #expect(lines.last?.contains("Generated item 999") == true)
            #expect(lines.last?.contains("Generated item 998") == false)
        }
    }
}

/// Waits up to `timeout` for `condition`, failing the test past it.
func waitUntil(timeout: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        guard ContinuousClock.now < deadline else {
            Issue.record("not so within \(timeout)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
