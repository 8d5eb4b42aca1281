import FixtureServer
import Foundation
import Testing

/// What a number names, from any shell: subscription numbers that do not move.
@Suite("Stable numbers", .serialized)
struct AddressingProcessTests {
    typealias Scene = LibraryProcessTests.Scene

    /// `unsubscribe 1` and a new subscription leave the others' numbers alone, in
    /// this shell and the next; `podcast N`, `update N` and JSON agree.
    @Test func subscriptionNumbersDoNotMove() async throws {
        try await Scene.with { scene in
            for path in ["/feeds/1386867488.xml", "/feeds/paged.xml", "/feeds/listening.xml"] {
                #expect(try await scene.run("subscribe \(scene.base)\(path)").status == 0)
            }
            let after = try await scene.run("unsubscribe 1; subscribe \(scene.base)/feeds/1000000001.xml; podcasts")
            #expect(after.status == 0, "\(after.standardError)")
            let rows = after.standardOutput.split(separator: "\n").filter {
                $0.first?.isNumber == true || $0.hasPrefix(" ")
            }
            #expect(
                rows.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("2 ") && $0.contains("Paged Feed") }
            )
            #expect(rows.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("3 ") && $0.contains("Tones") })
            #expect(
                rows.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("4 ") && $0.contains("Long Archive") }
            )
            let loaded = try await scene.run("podcast 3; update 2", json: true)
            #expect(loaded.status == 0, "\(loaded.standardError)")
            let lines = try loaded.standardOutput.split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let podcast = lines.first??["result"] as? [String: Any]
            #expect(podcast?["title"] as? String == "Tones for Listening", "\(loaded.standardOutput)")
            let update = lines.last??["result"] as? [[String: Any]]
            #expect(update?.first?["number"] as? Int == 2 && update?.first?["title"] as? String == "Paged Feed")
            let gone = try await scene.run("podcast 1")
            #expect(gone.status == 1)
            #expect(gone.standardError.contains("no subscription 1 (2-4)"), "\(gone.standardError)")
        }
    }

    /// `P:E` from a shell with no podcast loaded: a partial left by a killed feedsh
    /// is resumed by `resume 1:2`, `show 1:2` has its file, `mark` reaches it.
    @Test func episodeAddressesFromAnyShell() async throws {
        try await withServerAndFolder(.init(mediaRate: 1_500_000)) { server, root in
            let scene = Scene(server: server, root: root)
            #expect(try await scene.run("subscribe 1386867488").status == 0)
            let final = scene.downloads.appendingPathComponent("1386867488/1000700000002.mp3")
            let sidecar = URL(fileURLWithPath: final.path + ".part.json")
            let first = try launchFeedsh(["-c", "get 1:2; wait"], environment: scene.environment, home: root)
            let confirmed = try await waitForConfirmedBytes(sidecar)
            kill(first.processIdentifier, SIGKILL)
            #expect(await waitForExit(first, timeout: .seconds(10)))
            #expect(confirmed > 0)
            // A new shell says there is a paused download and lists it as 1:2.
            let listed = try await scene.run("downloads")
            #expect(
                listed.standardError.contains("1 paused download: 'downloads' lists them"),
                "\(listed.standardError)"
            )
            let row = listed.standardOutput.split(separator: "\n").first { $0.hasPrefix("1:2") }
            #expect(
                row?.contains("paused") == true && row?.contains("Range Requests") == true,
                "\(listed.standardOutput)"
            )
            let resumed = try await scene.run("resume 1:2; wait; show 1:2; mark played 1:1; podcast 1; episodes")
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardError.contains("downloaded 1:2 Range Requests"), "\(resumed.standardError)")
            let expected = SyntheticMedia(key: "1386867488/1000700000002.mp3").allBytes
            #expect(try Data(contentsOf: final) == Data(expected))
            #expect(resumed.standardOutput.contains("file:   \(final.path)\n"), "\(resumed.standardOutput)")
            #expect(resumed.standardOutput.contains("marked 1 episode played"))
            let rows = resumed.standardOutput.split(separator: "\n")
            #expect(rows.contains { $0.contains("played") && $0.contains("Ports, Sockets") })
            let wrong = try await scene.run("get 1:9")
            #expect(wrong.status == 1)
            #expect(wrong.standardError.contains("no episode 1:9 (1-5 in Loopback Radio)"), "\(wrong.standardError)")
        }
    }

    /// "New" means one thing: a first read of an imported feed is its history, not
    /// news, in `update`'s words, its JSON and `new` alike; what arrives later is.
    @Test func newMeansOneThing() async throws {
        try await Scene.with { scene in
            let list = scene.root.appendingPathComponent("one.opml")
            try """
            <opml version="2.0"><body>
            <outline type="rss" text="x" xmlUrl="\(scene.base)/fault/changes=1/feeds/1386867488.xml"/>
            </body></opml>
            """.write(to: list, atomically: true, encoding: .utf8)
            let first = try await scene.run("import \(list.path); update; new")
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("Loopback Radio: first read, 5 episodes (none marked new)"))
            #expect(first.standardOutput.contains("1 feed: 1 read (0 new episodes)"))
            #expect(first.standardOutput.contains("no new episodes"), "\(first.standardOutput)")
            let second = try await scene.run("update; new")
            #expect(second.standardOutput.contains("Loopback Radio: 1 new episode"), "\(second.standardOutput)")
            #expect(second.standardOutput.contains("Bonus episode 1"))
            let counts = try await scene.run("podcasts", json: true)
            let object = try JSONSerialization.jsonObject(with: Data(counts.standardOutput.utf8)) as? [String: Any]
            #expect((object?["result"] as? [[String: Any]])?.first?["newCount"] as? Int == 1)
        }
    }
}
