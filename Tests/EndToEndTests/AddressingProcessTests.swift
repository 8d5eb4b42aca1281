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
}
