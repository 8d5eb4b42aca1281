import Foundation
import Library
import Testing

@testable import FeedShell

@Suite("While you were away")
struct AwayReportTests {
    @Test func whatTheBackgroundFinishedIsSaidOnceAtTheNextStart() async throws {
        try await ShellHarness.run { h in
            let library = try h.shell.session.library()
            try await library.recordAway(AwayEvent(label: "1 One", path: "/d/1.mp3", failed: false))
            try await library.recordAway(AwayEvent(label: "2 Two", path: "/d/2.mp3", failed: false))
            try await library.recordAway(
                AwayEvent(
                    label: "3 Three",
                    path: "/d/3.mp3",
                    failed: true,
                    message: "HTTP 404 Not Found from http://x/3.mp3"
                )
            )
            var watched = AwayEvent(label: "4 Four", path: "/d/4.mp3", failed: false)
            watched.reported = true
            try await library.recordAway(watched)
            await h.shell.reportAway()
            #expect(
                h.output.standardError
                    == "while you were away: 2 downloaded, 1 failed (3 Three: HTTP 404 Not Found from http://x/3.mp3)\n"
            )
            await h.shell.reportAway()
            #expect(h.output.standardError.components(separatedBy: "while you were away").count == 2)
        }
    }

    /// A later start reads the events without the library open; one with nothing
    /// to report (no events, no paused downloads) leaves it closed, and so does
    /// an idle prompt.
    @Test func aStartWithNothingToSayLeavesTheLibraryClosed() async throws {
        try await ShellHarness.run { h in
            try await h.shell.session.library().recordAway(AwayEvent(label: "1 One", path: "/d/1.mp3", failed: false))
            let later = h.sibling()
            await later.shell.start()
            #expect(later.output.standardError == "while you were away: 1 downloaded\n")
            #expect(later.shell.session.services.library.opened != nil)
            let quiet = h.sibling()
            await quiet.shell.start()
            #expect(quiet.output.standardError == "")
            // Nor does Tab's list of downloads, refreshed before every prompt.
            #expect(await quiet.shell.session.services.downloads.listedDownloads().isEmpty)
            #expect(quiet.shell.session.services.library.opened == nil)
            // Nor does the completion snapshot (subscriptions, playlist names).
            await TerminalState().refreshSnapshot(quiet.shell.session)
            #expect(quiet.shell.session.services.library.opened == nil)
            await later.shell.close()
            await quiet.shell.close()
        }
    }
}
