import Foundation
import Testing

@testable import FeedShell

@Suite("about")
struct AboutCommandTests {
    @Test func saysWhereThingsAreAndWhatIsInEffect() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("about") == .success)
            var out = h.output.standardOutput
            #expect(out.hasPrefix("feedsh 0.1.0 (User-Agent: feedsh/0.1.0"), "\(out)")
            // Asking makes no library.
            #expect(out.contains("(not made yet)"), "\(out)")
            #expect(out.contains("3 at once, no rate cap"), "\(out)")
            h.output.clear()
            #expect(await h.run("set rate-limit 2M; set player \"no-such-player-here {}\"") == .success)
            h.output.clear()
            #expect(await h.run("about") == .success)
            out = h.output.standardOutput
            #expect(out.contains("(0 subscriptions)"), "\(out)")
            #expect(out.contains("at most 2M/s"), "\(out)")
            #expect(out.contains("player     no-such-player-here {}: not found in PATH"), "\(out)")
        }
    }

    @Test func jsonHasEveryFieldEvenWhenUnset() async throws {
        try await ShellHarness.run(json: true) { h in
            #expect(await h.run("about") == .success)
            let line = h.output.standardOutput
            for field in [
                #""version":"0.1.0""#, #""subscriptions":null"#, #""rateLimit":null"#, #""maxConcurrent":3"#,
                #""engine":"#, #""downloadDirectory":"#, #""playerPath":"#,
            ] {
                #expect(line.contains(field), "\(field) in \(line)")
            }
        }
    }
}
