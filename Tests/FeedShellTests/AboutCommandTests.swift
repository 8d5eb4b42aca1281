import Foundation
import Testing

@testable import FeedShell

@Suite("about")
struct AboutCommandTests {
    /// What `about` printed, after `setup` ran.
    private static func about(_ h: ShellHarness, after setup: String? = nil) async -> String {
        if let setup { _ = await h.run(setup) }
        h.output.clear()
        let status = await h.run("about")
        return status == .success ? h.output.standardOutput : "failed: " + h.output.standardError
    }

    @Test func saysWhereThingsAreAndWhatIsInEffect() async throws {
        try await ShellHarness.run { h in
            let before = await Self.about(h)
            #expect(before.hasPrefix("feedsh 0.1.0 (User-Agent: feedsh/0.1.0"), "\(before)")
            // Asking makes no library.
            #expect(before.contains("(not made yet)") && before.contains("3 at once, no rate cap"), "\(before)")
            let after = await Self.about(h, after: "set rate-limit 2M; set player \"no-such-player-here {}\"")
            #expect(after.contains("(0 subscriptions)") && after.contains("at most 2M/s"), "\(after)")
            #expect(after.contains("player     no-such-player-here {}: not found in PATH"), "\(after)")
        }
    }

    @Test func aLibraryItCannotReadIsNamedNotCalledUnmade() async throws {
        try await ShellHarness.run { h in
            try FileManager.default.createDirectory(at: h.downloads, withIntermediateDirectories: true)
            let file = h.downloads.appendingPathComponent(".library.sqlite")
            try Data(repeating: 0x41, count: 4096).write(to: file)
            let said = await Self.about(h)
            #expect(said.hasPrefix("failed: ") && said.contains(file.path), "\(said)")
            #expect(!said.contains("not made yet"), "\(said)")
        }
    }

    @Test func jsonHasEveryFieldEvenWhenUnset() async throws {
        try await ShellHarness.run(json: true) { h in
            let line = await Self.about(h)
            let fields = [
                #""version":"0.1.0""#, #""subscriptions":null"#, #""rateLimit":null"#, #""maxConcurrent":3"#,
                #""engine":"#, #""downloadDirectory":"#, #""playerPath":"#,
            ]
            #expect(fields.allSatisfy(line.contains), "\(line)")
        }
    }
}
