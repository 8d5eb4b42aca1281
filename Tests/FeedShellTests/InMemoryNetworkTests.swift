import FeedKit
import FeedServices
import FixtureData
import FixtureServer
import Foundation
import ShellKit
import Sync
import Synchronization
import Testing

@testable import FeedShell

/// The web as the services see it, in memory: bodies by URL (path and query), and
/// what was asked. Where HTTP is not what a test is about, commands and services
/// run against this instead of a server, in milliseconds.
final class InMemoryWeb: HTTPFetching, FeedFetching {
    private let state = Mutex<(pages: [String: Result<Data, FeedError>], asked: [URL])>(([:], []))

    /// Serves `data` at `path` (with its query, if any: `/lookup?id=1`).
    func serve(_ path: String, _ data: Data) {
        state.withLock { $0.pages[path] = .success(data) }
    }

    /// Serves a fixture file (`itunes/lookup-1386867488.json`) at `path`.
    func serve(_ path: String, fixture: String) {
        serve(path, Data(FixtureFiles.all[fixture] ?? []))
    }

    /// Fails requests for `path` with `error`.
    func fail(_ path: String, _ error: FeedError) {
        state.withLock { $0.pages[path] = .failure(error) }
    }

    /// What is served at `path`, when it is a body.
    func page(at path: String) -> Data? {
        state.withLock { state in
            if case .success(let data)? = state.pages[path] { return data }
            return nil
        }
    }

    /// The URLs asked for, in order.
    var asked: [URL] { state.withLock { $0.asked } }

    private func page(_ url: URL) throws(FeedError) -> Data {
        let key = url.path + (url.query.map { "?" + $0 } ?? "")
        let page = state.withLock { state in
            state.asked.append(url)
            return state.pages[key] ?? state.pages[url.path]
        }
        switch page {
        case .success(let data)?: return data
        case .failure(let error)?: throw error
        case nil: throw FeedError.httpStatus(404, url: url)
        }
    }

    func get(_ url: URL, headers: [(name: String, value: String)], limit: Int) async throws(FeedError) -> HTTPBody {
        let data = try page(url)
        guard data.count <= limit else { throw .bodyTooLarge(url: url, limit: limit) }
        return HTTPBody(url: url, contentType: "application/json", data: data)
    }

    func fetch(
        _ url: URL,
        etag: String?,
        lastModified: String?,
        credentials: FeedCredentials?,
        sink: FeedItemSink?
    ) async throws(FeedError) -> FeedClient.Outcome {
        let data = try page(url)
        // The same body's tag: an unchanged feed is a 304, as a server says.
        let tag = "\"\(data.hashValue)\""
        if etag == tag { return .notModified(movedTo: nil) }
        var feed: Feed
        do throws(FeedParseError) {
            feed = try FeedParser.parse(data, url: url)
        } catch {
            throw .invalidFeed(url: url, detail: error.description)
        }
        if let sink {
            _ = sink(feed.items)
            feed.items = []
        }
        return .fetched(feed, etag: tag, lastModified: nil, movedTo: nil)
    }
}

/// A shell whose services reach only an ``InMemoryWeb``: no socket is opened.
struct InMemoryShell {
    let web: InMemoryWeb
    let shell: Shell
    let output: CapturedOutput

    static let base = URL(string: "http://api.invalid")!

    static func run<T>(json: Bool = false, _ body: (InMemoryShell) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = InMemoryWeb()
        let output = CapturedOutput()
        let configuration = Configuration(endpoints: Endpoints(allAt: base), downloadDirectory: folder)
        let shell = Shell(
            services: Services(configuration: configuration, network: Network(http: web, feeds: web)),
            console: Console(sink: output, isTerminal: false, width: nil, json: json)
        )
        let harness = InMemoryShell(web: web, shell: shell, output: output)
        do {
            let result = try await body(harness)
            await shell.close()
            return result
        } catch {
            await shell.close()
            throw error
        }
    }

    func run(_ text: String) async -> ShellKit.ExitStatus {
        await shell.run(script: ScriptLines(text: text, source: nil), keepGoing: false)
    }
}

@Suite("Commands over an in-memory web")
struct InMemoryNetworkTests {
    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Memory Lane</title>
        <item><guid>a</guid><title>First steps</title><pubDate>Mon, 02 Nov 2026 09:00:00 GMT</pubDate>
        <enclosure url="http://media.invalid/a.mp3" length="1000" type="audio/mpeg"/></item>
        </channel></rss>
        """

    @Test func lookupAndSearchReadTheDirectoryThroughTheFetcher() async throws {
        try await InMemoryShell.run { h in
            h.web.serve("/lookup", fixture: "itunes/lookup-1386867488.json")
            h.web.serve("/search", fixture: "itunes/search-podcasts.json")
            #expect(await h.run("lookup --limit 3; episodes; search loopback") == .success)
            let out = h.output.standardOutput
            #expect(out.hasPrefix("Loopback Radio · feedsh fixtures\n"))
            #expect(out.contains("Ports, Sockets and the Art of Listening"))
            let lookup = try #require(h.web.asked.first)
            #expect(lookup.query?.contains("id=1386867488") == true && lookup.query?.contains("limit=3") == true)
            #expect(h.web.asked.map(\.path) == ["/lookup", "/search"])
        }
    }

    @Test func aFailureNamesTheURLAndNothingIsLoaded() async throws {
        try await InMemoryShell.run { h in
            #expect(await h.run("lookup 42") == .failure)
            #expect(h.output.standardError.contains("HTTP 404"))
            #expect(h.output.standardError.contains("http://api.invalid/lookup"))
            h.output.clear()
            #expect(await h.run("episodes") == .failure)
            #expect(h.output.standardError.contains("no podcast loaded"))
        }
    }

    @Test func postsAreTypedResultsInBothForms() async throws {
        try await InMemoryShell.run(json: true) { h in
            h.web.serve("/posts", fixture: "posts/posts.json")
            #expect(await h.run("posts --limit 2") == .success)
            let line = try #require(h.output.standardOutput.split(separator: "\n").first)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            )
            #expect(object["command"] as? String == "posts")
            #expect((object["result"] as? [[String: Any]])?.count == 2)
        }
    }

    @Test func subscribeUpdateAndNewWithoutAServer() async throws {
        try await InMemoryShell.run { h in
            h.web.serve("/show.xml", Data(Self.feed.utf8))
            #expect(await h.run("subscribe http://feeds.invalid/show.xml") == .success)
            #expect(h.output.standardOutput.contains("subscribed to Memory Lane: 1 episode"))
            // Unchanged: the fetcher answers as a 304 would.
            h.output.clear()
            #expect(await h.run("update; new") == .success)
            #expect(h.output.standardOutput.contains("no new episodes"))
            // A second item arrives.
            let grown = Self.feed.replacingOccurrences(
                of: "<item>",
                with: """
                    <item><guid>b</guid><title>Second steps</title><pubDate>Tue, 03 Nov 2026 09:00:00 GMT</pubDate>
                    <enclosure url="http://media.invalid/b.mp3" length="1000" type="audio/mpeg"/></item><item>
                    """
            )
            h.web.serve("/show.xml", Data(grown.utf8))
            h.output.clear()
            #expect(await h.run("update; new") == .success)
            #expect(h.output.standardOutput.contains("Second steps"))
            #expect(h.web.asked.allSatisfy { $0.host == "feeds.invalid" })
        }
    }

    @Test func aFeedThatWantsAPasswordGetsTheShellsAdvice() async throws {
        try await InMemoryShell.run { h in
            let url = URL(string: "http://feeds.invalid/private.xml")!
            h.web.fail(
                "/private.xml",
                .unauthorized(url: url, detail: "the feed at feeds.invalid wants a password", credentialsWanted: true)
            )
            #expect(await h.run("subscribe \(url.absoluteString)") == .failure)
            #expect(h.output.standardError.contains("wants a password (subscribe URL --user NAME)"))
            #expect(await h.run("podcasts") == .success)
            #expect(h.output.standardOutput.contains("no subscriptions"))
        }
    }

    @Test func aStoredFailureIsItsCodeAndDataPutInWordsWhenShown() async throws {
        try await InMemoryShell.run { h in
            h.web.serve("/show.xml", Data(Self.feed.utf8))
            #expect(await h.run("subscribe http://feeds.invalid/show.xml") == .success)
            let url = URL(string: "http://feeds.invalid/show.xml")!
            h.web.fail(
                "/show.xml",
                .unauthorized(url: url, detail: "the feed at feeds.invalid wants a password", credentialsWanted: true)
            )
            // Every command ran; the feed that was not read says so in the status.
            #expect(await h.run("update") == .feedsNotRead)
            h.output.clear()
            #expect(await h.run("podcasts") == .success)
            #expect(h.output.standardOutput.contains("wants a password (subscribe URL --user NAME)"))
        }
        try await InMemoryShell.run(json: true) { h in
            h.web.serve("/show.xml", Data(Self.feed.utf8))
            #expect(await h.run("subscribe http://feeds.invalid/show.xml") == .success)
            h.web.fail("/show.xml", .httpStatus(503, url: URL(string: "http://feeds.invalid/show.xml")!))
            #expect(await h.run("update; podcasts") == .feedsNotRead)
            let last = try #require(h.output.standardOutput.split(separator: "\n").last)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            let row = try #require((object["result"] as? [[String: Any]])?.first)
            #expect(row["code"] as? String == "http-status")
            #expect((row["error"] as? String)?.contains("503") == true)
        }
    }
}

/// What `export history` writes, where a hostile feed or another device chose
/// the titles, GUIDs and notes.
@Suite("History export")
struct HistoryExportTests {
    @Test func aFieldThatASpreadsheetWouldRunIsWrittenAsText() {
        #expect(
            HistoryExport.csvField("=HYPERLINK(\"http://x.example\",\"go\")")
                == "'=HYPERLINK(\"http://x.example\",\"go\")"
        )
        for start in ["+", "-", "@"] { #expect(HistoryExport.csvField(start + "1+1") == "'" + start + "1+1") }
        #expect(HistoryExport.csvField("Episode 12 = fine") == "Episode 12 = fine")
        // Escapes (window title, clear screen, clipboard) never reach the file.
        let note = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}]52;c;ZXZpbA==\u{07}note\nsecond line"
        let field = HistoryExport.csvField(note)
        #expect(!field.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(field.debugDescription)")
        #expect(field.contains("note"))
    }

    @Test func theFileIsPrivateAndNeverReplaced() async throws {
        try await InMemoryShell.run { h in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).csv")
                .path
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(await h.run("export history \(path)") == .success)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let first = try String(contentsOfFile: path, encoding: .utf8)
            #expect(first.hasPrefix("kind,date,podcast,episode,feedURL,guid,"))
            #expect(await h.run("export history \(path)") == .failure)
            #expect(h.output.standardError.contains("it exists already"), "\(h.output.standardError)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == first)
        }
    }
}

/// A sync's words, whatever the server sent.
@Suite("Sync report")
struct SyncReportTextTests {
    /// A server whose endless pages are all malformed once made 50,000 lines.
    @Test func thousandsOfSkippedActionsAreCountedNotListed() throws {
        var report = SyncReport()
        report.skipped = (0..<50_000).map { SkippedAction(path: "$.actions[\($0)]", reason: .missing("episode")) }
        let account = SyncAccount(
            server: URL(string: "http://sync.invalid")!,
            user: "alice",
            device: "feedsh",
            flavor: .gpodder
        )
        let text = Render.sync(report, account: account)
        let lines = text.split(separator: "\n")
        #expect(lines.count < 10, "\(lines.count) lines")
        #expect(text.contains("skipped the action at $.actions[0]: no episode"))
        #expect(text.contains("skipped 49997 more actions the server sent malformed"), "\(text)")
    }
}

/// The running `play`'s link, as `sleep` in another feedsh reads it.
@Suite("Player link")
struct PlayerLinkTests {
    /// In a shared runtime folder, a link another user wrote, one anyone may
    /// write, or a symbolic link is not read.
    @Test func onlyALinkThisUserAloneWritesIsRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("player.json").path
        let body = Data(#"{"pid":1,"socket":"/tmp/x","playing":"1:1 x"}"#.utf8)
        #expect(FileManager.default.createFile(atPath: file, contents: body, attributes: [.posixPermissions: 0o600]))
        #expect(PlayerLink.ownedContents(atPath: file) == body)
        chmod(file, 0o666)
        #expect(PlayerLink.ownedContents(atPath: file) == nil)
        chmod(file, 0o600)
        let link = folder.appendingPathComponent("link.json").path
        symlink(file, link)
        #expect(PlayerLink.ownedContents(atPath: link) == nil)
        // Another user's file (only root can give one away).
        if getuid() == 0 {
            #expect(chown(file, 65534, 65534) == 0)
            #expect(PlayerLink.ownedContents(atPath: file) == nil)
        }
    }
}

@Suite("sleep")
struct SleepCommandTests {
    /// A value that is no timer is refused as such, whether anything plays or not.
    @Test func aBadValueIsRefusedBeforeAskingWhatPlays() async throws {
        try await InMemoryShell.run { h in
            #expect(await h.run("sleep 0") != .success)
            #expect(!h.output.standardError.contains("nothing is playing"), "\(h.output.standardError)")
            #expect(h.output.standardError.contains("'0'"), "\(h.output.standardError)")
            h.output.clear()
            #expect(await h.run("sleep 30m") != .success)
            #expect(h.output.standardError.contains("nothing is playing"), "\(h.output.standardError)")
        }
    }
}

@Suite("sync status")
struct SyncStatusTextTests {
    /// The last sync reads the same whatever the locale: numbers, local time.
    @Test func theLastSyncIsADateEveryLocaleReads() {
        let date = Date(timeIntervalSince1970: 1_795_784_709)  // 2026-11-27 13:05:09 UTC
        #expect(Render.localTime(date, timeZone: TimeZone(identifier: "UTC")!) == "2026-11-27 13:05:09")
        #expect(Render.localTime(date, timeZone: TimeZone(identifier: "Asia/Tokyo")!) == "2026-11-27 22:05:09")
    }
}
