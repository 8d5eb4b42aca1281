import Foundation
import Hummingbird
import HummingbirdTesting
import SocketTestSupport
import Testing

@testable import FeedServer

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The pieces of `feedsh serve` that need no socket: the RSS it writes, which
/// paths it serves, and Basic auth.
@Suite struct FeedServerTests {
    let item = ServedItem(
        guid: "a&b <1>",
        title: "Tom & \"Jerry\" <live>\u{1B}[31m",
        podcastTitle: "P",
        date: Date(timeIntervalSince1970: 1_793_000_000),
        description: "<p>Notes</p>",
        seconds: 2400.4,
        mediaPath: "1386867488/100 0.mp3",
        length: 12_345_678_901,
        type: "audio/mpeg",
        chaptersURL: "https://example.org/c.json?a=1&b=2",
        transcripts: [("https://example.org/t.vtt", "text/vtt")]
    )

    @Test func theFeedHasTheNamespacesEscapingAndExactLengths() throws {
        let feed = ServedFeed(
            title: "All & more",
            description: "d",
            artworkURL: "https://example.org/a.jpg",
            items: [item]
        )
        let xml = RSSWriter.write(feed, base: "http://127.0.0.1:8786", link: "http://127.0.0.1:8786/feeds/all.xml")
        #expect(xml.contains(#"xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd""#))
        #expect(xml.contains(#"xmlns:podcast="https://podcastindex.org/namespace/1.0""#))
        #expect(xml.contains("<title>Tom &amp; &quot;Jerry&quot; &lt;live&gt;[31m</title>"))
        #expect(xml.contains(#"<guid isPermaLink="false">a&amp;b &lt;1&gt;</guid>"#))
        #expect(
            xml.contains(
                #"<enclosure url="http://127.0.0.1:8786/media/1386867488/100%200.mp3" length="12345678901" type="audio/mpeg"/>"#
            )
        )
        #expect(xml.contains("<itunes:duration>2400</itunes:duration>"))
        #expect(xml.contains("<pubDate>Mon, 26 Oct 2026 07:33:20 GMT</pubDate>"))
        #expect(xml.contains(#"<podcast:chapters url="https://example.org/c.json?a=1&amp;b=2""#))
        #expect(xml.contains(#"<podcast:transcript url="https://example.org/t.vtt" type="text/vtt"/>"#))
        // Well-formed: Foundation's parser reads it to the end.
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }

    @Test func onlyCompleteFilesInsideTheFolderAreServed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("12")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["34.mp3", "35.mp3.part", "35.mp3.part.json", ".hidden.mp3"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        try Data("secret".utf8).write(to: root.appendingPathComponent("library.sqlite"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link.mp3"),
            withDestinationURL: root.appendingPathComponent("library.sqlite")
        )
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("out"), withDestinationURL: folder)
        #expect(MediaFiles.file(for: "/media/12/34.mp3", root: root) == folder.path + "/34.mp3")
        for path in [
            "/media/12/35.mp3.part", "/media/12/35.mp3.part.json", "/media/12/.hidden.mp3", "/media/12/link.mp3",
            "/media/out/34.mp3", "/media/../library.sqlite", "/media/12/../../library.sqlite",
            "/media/%2e%2e/library.sqlite",
            "/media/12%2F34.mp3", "/media/12/34.mp3%00", "/media/12", "/media/12/", "/media/library.sqlite",
            "/feeds/12/34.mp3",
        ] {
            #expect(MediaFiles.file(for: path, root: root) == nil, "\(path)")
        }
    }

    @Test func basicAuthWantsThePasswordAndAnyUser() {
        let good = "Basic " + Data("anyone:correct horse".utf8).base64EncodedString()
        #expect(BasicAuthentication.accepts(good, password: "correct horse"))
        #expect(
            BasicAuthentication.accepts(
                "basic " + Data(":correct horse".utf8).base64EncodedString(),
                password: "correct horse"
            )
        )
        #expect(
            !BasicAuthentication.accepts(
                "Basic " + Data("anyone:correct".utf8).base64EncodedString(),
                password: "correct horse"
            )
        )
        #expect(
            !BasicAuthentication.accepts(
                "Basic " + Data("correct horse".utf8).base64EncodedString(),
                password: "correct horse"
            )
        )
        #expect(!BasicAuthentication.accepts("Bearer x", password: "correct horse"))
        #expect(!BasicAuthentication.accepts("Basic !!!", password: "correct horse"))
    }

    @Test func loopbackIsKnownByItsAddress() {
        #expect(FeedServer.Configuration(host: "127.0.0.1").isLoopback)
        #expect(FeedServer.Configuration(host: "::1").isLoopback)
        #expect(FeedServer.Configuration(host: "localhost").isLoopback)
        #expect(!FeedServer.Configuration(host: "0.0.0.0").isLoopback)
        #expect(!FeedServer.Configuration(host: "192.0.2.7").isLoopback)
    }

    @Test func loopbackNamesAreTold() {
        for host in [
            "localhost", "localhost:8786", "LOCALHOST.", "127.0.0.1", "127.0.0.1:8786", "127.1.2.3", "[::1]:8786",
        ] {
            #expect(LoopbackHost.namesLoopback(host), "\(host)")
        }
        for host in [
            "attacker.example", "127.0.0.1.attacker.example", "localhost.attacker.example:8786", "127.example.test",
            "127.0.0.256", "[::2]", "localhost:http", "192.168.1.2",
        ] {
            #expect(!LoopbackHost.namesLoopback(host), "\(host)")
        }
    }

    /// A catalog with nothing in it but subscription 7, for the routes.
    struct EmptyCatalog: ServeCatalog {
        func feed(_ choice: FeedChoice) async throws -> ServedFeed? {
            choice == .all || choice == .podcast(7)
                ? ServedFeed(title: "All", description: "d", artworkURL: nil, items: []) : nil
        }
        func subscriptionsOPML() async throws -> String { "<opml version=\"2.0\"/>" }
        var mediaRoot: URL { FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-no-media") }
    }

    /// DNS rebinding: a name of another site that resolves to 127.0.0.1 reaches
    /// a loopback server with that name as Host. It is refused before any route
    /// (through the router in memory, no socket); beyond loopback, where a
    /// password guards every route, the name is not judged.
    @Test func onLoopbackOnlyRequestsNamingThisMachineAreAnswered() async throws {
        let server = FeedServer(catalog: EmptyCatalog(), configuration: .init(), log: { _ in })
        try await Application(router: server.router()).test(.router) { client in
            for host in ["127.0.0.1:8786", "localhost:8786"] {
                try await client.execute(uri: "/subscriptions.opml", method: .get, headers: [.init("Host")!: host]) {
                    #expect($0.status == .ok, "\(host)")
                }
            }
            for path in ["/subscriptions.opml", "/feeds/all.xml", "/media/1/2.mp3"] {
                try await client.execute(
                    uri: path,
                    method: .get,
                    headers: [.init("Host")!: "rebind.attacker.example:8786"]
                ) {
                    #expect($0.status == .misdirectedRequest, "\(path)")
                }
            }
        }
        let open = FeedServer(
            catalog: EmptyCatalog(),
            configuration: .init(host: "0.0.0.0", password: "correct horse battery"),
            log: { _ in }
        )
        try await Application(router: open.router()).test(.router) { client in
            let auth = "Basic " + Data("me:correct horse battery".utf8).base64EncodedString()
            try await client.execute(
                uri: "/subscriptions.opml",
                method: .get,
                headers: [.init("Host")!: "feeds.home.example", .authorization: auth]
            ) { #expect($0.status == .ok) }
        }
    }

    /// Each spelling of a feed's path is the same feed, and is remembered once:
    /// 10,000 made-up spellings once kept 10,000 entries for good.
    @Test func everySpellingOfAFeedIsOneFeed() async throws {
        let server = FeedServer(catalog: EmptyCatalog(), configuration: .init(), log: { _ in })
        try await Application(router: server.router()).test(.router) { client in
            for zeros in 0..<50 {
                let path = "/feeds/" + String(repeating: "0", count: zeros) + "7.xml"
                try await client.execute(uri: path, method: .get) { #expect($0.status == .ok, "\(path)") }
            }
        }
        #expect(await FirstSeen.shared.resources.filter { $0.contains("7") }.count == 1)
    }

    /// A connection that sends nothing is closed after the idle time, so that
    /// idle connections cannot use up the server's file descriptors.
    @Test func anIdleConnectionIsClosed() async throws {
        let server = FeedServer(
            catalog: EmptyCatalog(),
            configuration: .init(port: 0, idleTimeout: .milliseconds(500)),
            log: { _ in }
        )
        let (port, stop) = try await Self.start(server)
        defer { stop() }
        let socket = try #require(loopbackConnection(port: port))
        defer { close(socket) }
        let started = ContinuousClock.now
        // Closed by the server: the read ends (0) well before the 10 s limit.
        #expect(Self.readByte(socket) == 0)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// A flood of connections that send nothing, or half a request, cannot keep
    /// anyone out: past the limit the one that has done least for longest is
    /// closed, and a request that comes after them is answered.
    @Test func aFloodOfIdleConnectionsCannotKeepAnyoneOut() async throws {
        let server = FeedServer(
            catalog: EmptyCatalog(),
            configuration: .init(port: 0, maxConnections: 8),
            log: { _ in }
        )
        let (port, stop) = try await Self.start(server)
        defer { stop() }
        var flood: [Int32] = []
        defer { flood.forEach { close($0) } }
        for index in 0..<40 {
            let socket = try #require(loopbackConnection(port: port))
            // Every other one sends half a request's head and stops.
            if index.isMultiple(of: 2) { _ = write(socket, "GET /feeds/all.xml HTTP/1.1\r\nHo", 31) }
            flood.append(socket)
        }
        // Someone asks after the flood. Connections come in on several event
        // loops, so one arriving in the same instant as the last of the flood
        // may be taken for older and closed: then, as a person would, it asks
        // again (at most 20 times, within 5 s).
        let deadline = ContinuousClock.now + .seconds(5)
        var answer = ""
        var tries = 0
        while answer != "HTTP/1.1 200", tries < 20, ContinuousClock.now < deadline {
            tries += 1
            try await Task.sleep(for: .milliseconds(100))
            guard let client = loopbackConnection(port: port) else { continue }
            defer { close(client) }
            let request = "GET /subscriptions.opml HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            _ = write(client, request, request.utf8.count)
            var bytes: [UInt8] = []
            while bytes.count < 12, let byte = Self.readByte(client), byte > 0 { bytes.append(UInt8(byte)) }
            answer = String(decoding: bytes, as: UTF8.self)
        }
        #expect(answer == "HTTP/1.1 200", "after \(tries) tries")
        // The first 32 of the flood were closed to make room: read gives 0, or
        // ECONNRESET when the server closed before reading the half-sent head
        // (the kernel then resets the connection).
        #expect(Self.closedByPeer(flood[0]), "errno \(errno)")
    }

    /// Runs `server` on a free port until the returned `stop` is called; stopped
    /// gracefully (a cancelled server traps on connections it has not taken up).
    static func start(_ server: FeedServer) async throws -> (port: Int, stop: @Sendable () -> Void) {
        let (ports, portGiven) = AsyncStream<Int>.makeStream()
        let (stops, stopper) = AsyncStream<Void>.makeStream()
        let serving = Task {
            try await server.run(
                stop: {
                    var iterator = stops.makeAsyncIterator()
                    _ = await iterator.next()
                },
                started: { portGiven.yield($0) }
            )
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            serving.cancel()
            throw CancellationError()
        }
        return (port, { stopper.yield() })
    }

    /// One byte, 0 at the end of the stream; nil when the read failed (timed out).
    /// Whether the other end closed `socket`: its read ends (0) or was reset.
    static func closedByPeer(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        var count = -1
        repeat { count = read(socket, &byte, 1) } while count < 0 && errno == EINTR
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    static func readByte(_ socket: Int32) -> Int? {
        var byte: UInt8 = 0
        var count = -1
        repeat { count = read(socket, &byte, 1) } while count < 0 && errno == EINTR
        return count < 0 ? nil : count == 0 ? 0 : Int(byte)
    }
}

@Suite("serve's address")
struct ServeAddressTests {
    @Test func aNameIsJudgedByTheAddressItResolvesTo() {
        #expect(["127.0.0.1", "::1"].contains(ServeFrontEnd.resolve("localhost") ?? ""))
        #expect(ServeFrontEnd.resolve("0.0.0.0") == "0.0.0.0")
        #expect(ServeFrontEnd.resolve("127.0.0.1") == "127.0.0.1")
        #expect(ServeFrontEnd.resolve("::1") == "::1")
        #expect(ServeFrontEnd.resolve("feeds.invalid") == nil)
        #expect(!FeedServer.Configuration(host: ServeFrontEnd.resolve("0.0.0.0") ?? "").isLoopback)
    }
}
