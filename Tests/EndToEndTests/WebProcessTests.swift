import FixtureServer
import Foundation
import Subprocess
import SystemPackage
import Testing

/// The web page of `feedsh serve` in a real browser (Debian's Chromium, headless,
/// driven by Selenium through `Scripts/web-client.py`), against the binary over a
/// library with real downloaded audio, the terminal's feedsh beside it.
@Suite("Web page", .serialized)
struct WebProcessTests {
    /// Whether Chromium and its driver are installed; CI installs them, so there a
    /// missing browser fails the test.
    static let browserRuns =
        ProcessInfo.processInfo.environment["CI"] != nil
        || (FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"))

    @Test(.enabled(if: browserRuns, "Chromium and chromium-driver are not installed"))
    func aListenersSessionInTheBrowserSharesItsPlaceWithTheTerminal() async throws {
        try await withServerAndFolder(.init(mediaRate: nil)) { server, root in
            let base = server.baseURL.absoluteString
            let environment = [
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("downloads").path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_PLAYER": ListeningProcessTests.mpv,
            ]
            let setUp = try await runFeedsh(
                [
                    "-c",
                    "subscribe \(base)/feeds/listening.xml; get 1:1,2; wait; queue add 1:2; queue add 1:3; "
                        + "get 1:3; wait; subscribe \(base)/feeds/file/hostile.rss; get 2:1; wait",
                ],
                environment: environment
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let serve = try LiveServe(environment: environment)
            let url = try await serve.url()
            let shots = root.appendingPathComponent("screenshots")
            try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
            let report = try await Self.browse(url, shots: shots, environment: environment, home: root)
            #expect(report["problems"] as? [String] == [], "\(report["problems"] ?? "")")

            // The place the page paused at is the terminal's; the terminal's is the page's.
            let pausedAt = try #require(report["pausedAt"] as? Double)
            #expect(pausedAt >= 3)
            let shown = try #require(report["terminalAfterPause"] as? Double)
            #expect(abs(shown - pausedAt) < 0.5, "page paused at \(pausedAt), show says \(shown)")
            #expect(report["sameDocument"] as? Bool == true)
            let moved = try #require(report["terminalMovedTo"] as? Double)
            #expect(moved >= 60 && moved < 70)
            let resumed = try #require(report["resumedAt"] as? Double)
            #expect(abs(resumed - moved) < 2, "the terminal left it at \(moved), the page resumed at \(resumed)")
            // A cue, and a find hit, play from where their words are said (1:15).
            #expect((report["cueSeekedTo"] as? Double).map { $0 >= 75 && $0 < 80 } == true)
            #expect(report["cueHighlighted"] as? Bool == true)
            #expect((report["findPlayedAt"] as? Double).map { $0 >= 75 && $0 < 80 } == true)
            #expect(report["findPlayed"] as? String == "1:1")
            // Playing on across views, and back again with the browser's button.
            let across = report["acrossViews"] as? [String: Any] ?? [:]
            #expect(across["sameDocument"] as? Bool == true && across["playing"] as? Bool == true)
            #expect((across["advanced"] as? Double ?? 0) > 0.5 && across["path"] as? String == "/")
            #expect(report["backTo"] as? String == "/e/1:1")
            // The end marks it played, and the queue goes on.
            let queue = report["queue"] as? [String: Any] ?? [:]
            #expect(queue["first"] as? String == "1:2" && queue["second"] as? String == "1:3")
            #expect(queue["firstPlayed"] as? Bool == true)
            // A feed's markup is text: nothing ran, nothing loaded.
            let hostile = report["hostile"] as? [String: Any] ?? [:]
            #expect((hostile["heading"] as? String)?.contains("<script>") == true)
            #expect((report["hostileList"] as? String)?.contains("<img src=x") == true)
            #expect(hostile["images"] as? Int == 0 && hostile["scripts"] as? Int == 0)
            #expect(hostile["javascriptLinks"] as? Int == 0)
            #expect(hostile["titleAfter"] as? String != "pwned")
            #expect(
                (hostile["externalLink"] as? [String])?.first
                    == "https://example.org/harbour noopener noreferrer nofollow"
            )
            // A phone's width: no scrolling sideways; targets of 40 px.
            for (page, sizes) in report["phoneWidths"] as? [String: [Int]] ?? [:] {
                #expect(sizes.count == 2 && sizes[0] <= sizes[1], "\(page) is \(sizes) wide")
            }
            #expect(report["smallTargets"] as? Int == 0)
            #expect((report["statsBars"] as? Int ?? 0) > 0)
            // Nothing from elsewhere, no errors; the policy is there, and another
            // origin cannot change the library.
            #expect(report["foreignRequests"] as? [String] == [])
            #expect(report["consoleErrors"] as? [String] == [])
            #expect((report["policy"] as? String)?.hasPrefix("default-src 'self'") == true)
            #expect(report["crossOriginStatus"] as? Int == 403)
            #expect((report["firstLoadBytes"] as? Int ?? 0) > 0)
            #expect(try await serve.stop() == 0)
        }
    }

    /// Runs Scripts/web-client.py against `url`; its report.
    static func browse(_ url: String, shots: URL, environment: [String: String], home: URL) async throws
        -> [String: Any]
    {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = root.appendingPathComponent(".build-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw ServeTestError("no \(python.path): 'make test-deps' makes the venv with selenium")
        }
        let result = try await Subprocess.run(
            .path(FilePath(python.path)),
            arguments: [root.appendingPathComponent("Scripts/web-client.py").path, url, feedshBinary.path, shots.path],
            environment: .custom(
                testEnvironment(environment, home: home.appendingPathComponent("home")).reduce(into: [:]) {
                    $0[.init(stringLiteral: $1.key)] = $1.value
                }
            ),
            output: .string(limit: 1 << 24),
            error: .string(limit: 1 << 20)
        )
        guard result.terminationStatus.isSuccess,
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
                as? [String: Any]
        else { throw ServeTestError("web-client.py: \(result.standardError)") }
        return object
    }
}
