import FixtureServer
import Foundation
import HTTPSupport
import Testing
import WebBasics

@testable import FeedKit

@Suite("Feed credentials")
struct FeedCredentialsTests {
    @Test func userinfoIsSplitOffAndDecoded() throws {
        let (bare, credentials) = try FeedCredentials.split(
            URL(string: "https://al%20ice:p%40ss%3Aw:ord@feeds.example:8443/members/rss?k=1")!
        )
        #expect(bare.absoluteString == "https://feeds.example:8443/members/rss?k=1")
        #expect(credentials == FeedCredentials(user: "al ice", password: "p@ss:w:ord"))
        #expect(credentials?.description == "user al ice")
        // Embedded again (export --with-credentials), it reads back the same.
        let embedded = try #require(credentials).embedded(in: bare)
        #expect(try FeedCredentials.split(embedded).credentials == credentials)
        #expect(try FeedCredentials.split(embedded).url == bare)
        #expect(embedded.redacted == "https://al%20ice@feeds.example:8443/members/rss?k=1")
        // None: the URL as it was.
        let plain = URL(string: "https://feeds.example/rss")!
        #expect(try FeedCredentials.split(plain).credentials == nil)
        #expect(FeedCredentials(user: "a", password: "b").authorization == "Basic YTpi")
    }

    @Test func brokenUserinfoIsNamed() {
        for text in ["https://bob:s3%zz@feeds.example/rss", "https://:secret@feeds.example/rss"] {
            #expect(throws: FeedCredentialsError.self) {
                try FeedCredentials.split(URL(string: text)!, written: text)
            }
        }
    }

    /// Messages never echo a password: of a URL that parses, of text that does
    /// not (a space or `/` in the password), or of a URL a server sent.
    @Test func messagesHideThePassword() {
        #expect(URL.redacted("https://bob:s3cret@feeds.example/rss") == "https://bob@feeds.example/rss")
        #expect(URL.redacted("https://bob:s3 cr/et@feeds example/rss") == "https://bob:***@feeds example/rss")
        #expect(URL.redacted("feeds.example/rss") == "feeds.example/rss")
        #expect(!FeedError.invalidURL("https://bob:s3 cret@x y/").description.contains("s3"))
        // A password in the query (a private feed's token) is one too.
        #expect(
            URL.redacted("https://feeds.example/rss?token=s3cret&page=2#top")
                == "https://feeds.example/rss?token=***&page=2#top"
        )
        #expect(
            URL.redacted("https://bob:pw@feeds.example/rss?api_key=s3&Auth=s4&X-Amz-Signature=s5&copy=1")
                == "https://bob@feeds.example/rss?api_key=***&Auth=***&X-Amz-Signature=***&copy=1"
        )
        #expect(URL.redacted("https://feeds.example/rss?id=1&monkey=2") == "https://feeds.example/rss?id=1&monkey=2")
        #expect(URL.redacted("feeds example/rss?access-token=s3").hasSuffix("rss?access-token=***"))
        let moved = URL(string: "https://bob:s3cret@feeds.example/rss")!
        for error in [
            FeedError.httpStatus(500, url: moved), .timedOut(url: moved, after: .seconds(30)),
            .invalidFeed(url: moved, detail: "x"), .transport(url: moved, detail: "x"),
        ] {
            #expect(!error.description.contains("s3cret"), "\(error.code)")
        }
    }

    @Test func originsDifferByHostSchemeOrPort() {
        let feed = URL(string: "https://Feeds.example/rss")!
        #expect(feed.origin == URL(string: "https://feeds.example:443/media/1.mp3")!.origin)
        #expect(feed.origin != URL(string: "http://feeds.example/media/1.mp3")!.origin)
        #expect(feed.origin != URL(string: "https://feeds.example:8443/a")!.origin)
        #expect(feed.origin != URL(string: "https://cdn.feeds.example/a")!.origin)
    }

    /// The feed client sends them to the feed's origin, says what a 401 wants,
    /// and names a refused user; a redirect to another origin goes without.
    @Test func theFeedClientSendsThemToTheOriginOnly() async throws {
        let server = try await FixtureServer.start()
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        defer { Task { try? await client.shutdown() } }
        let good = FeedCredentials(user: FixtureServer.privateUser, password: FixtureServer.privatePassword)
        let feed = server.url("/feeds/private.xml")
        let asked = await #expect(throws: FeedError.self) { try await client.fetch(feed) }
        #expect(asked?.code == .unauthorized)
        #expect(
            asked?.description == "the feed at 127.0.0.1 wants a user name and password"
        )
        let refused = await #expect(throws: FeedError.self) {
            try await client.fetch(feed, credentials: FeedCredentials(user: "alice", password: "no"))
        }
        #expect(refused?.description == "the feed at 127.0.0.1 refused alice's password (HTTP 401)")
        guard case .fetched(let fetched, _, _, _) = try await client.fetch(feed, credentials: good) else {
            Issue.record("the feed was not read")
            return
        }
        #expect(fetched.items.count == 3)
        // /private/elsewhere/ redirects to localhost: the hop there has none.
        _ = try? await client.fetch(server.url("/private/elsewhere/feed.xml"), credentials: good)
        let hops = server.requests.filter { $0.path.hasSuffix("feed.xml") && $0.path != "/feeds/private.xml" }
        #expect(hops.count == 2, "\(hops)")
        #expect(hops.first?.authorization == good.authorization)
        #expect(hops.last?.authority?.hasPrefix("localhost:") == true && hops.last?.authorization == nil, "\(hops)")
        await server.stop()
    }
}
