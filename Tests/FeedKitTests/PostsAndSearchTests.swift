import FixtureServer
import Foundation
import Testing

@testable import FeedKit

@Suite("Posts")
struct PostsTests {
    @Test func fixturesDecode() throws {
        let posts = try JSONDecoder().decode([Post].self, from: fixture("posts/posts.json"))
        #expect(posts.map(\.id) == Array(1...100))
        #expect(Set(posts.map(\.userId)) == Set(1...10))
        let comments = try JSONDecoder().decode([FeedKit.Comment].self, from: fixture("posts/comments.json"))
        #expect(comments.count == 500)
    }

    /// The real JSONPlaceholder dump, when ../shared/corpus is present.
    @Test(.enabled(if: corpusHas("jsonplaceholder/data.json"), "../shared/corpus/jsonplaceholder is not present"))
    func corpusPostsAndCommentsDecode() throws {
        let file = try #require(corpusDirectory).appendingPathComponent("jsonplaceholder/data.json")
        struct Dump: Decodable {
            let posts: [Post]
            let comments: [FeedKit.Comment]
        }
        let dump = try JSONDecoder().decode(Dump.self, from: Data(contentsOf: file))
        #expect(dump.posts.count == 100)
        #expect(dump.comments.count == 500)
        #expect(dump.posts.contains { $0.body.contains("\n") })
    }

    @Test func clientListsFiltersAndShowsWithComments() async throws {
        try await withClient { server, http in
            let client = PostsClient(baseURL: server.baseURL, http: http)
            #expect(try await client.posts().count == 100)
            let third = try await client.posts(userId: 3)
            #expect(third.map(\.id) == Array(21...30))
            let (post, comments) = try await client.post(id: 7)
            #expect(post.id == 7)
            #expect(comments.map(\.postId) == [7, 7, 7, 7, 7])
        }
    }

    @Test func unknownPostNamesTheRange() async throws {
        try await withClient { server, http in
            let client = PostsClient(baseURL: server.baseURL, http: http)
            let error = await #expect(throws: FeedError.self) { try await client.post(id: 101) }
            #expect(error?.code == .notFound)
            #expect(error?.description == "no post 101 (ids 1-100)")
        }
    }

    @Test func serverErrorsKeepStatusAndURL() async throws {
        try await withClient { server, http in
            let client = PostsClient(baseURL: server.url("/fault/status=502"), http: http)
            let error = await #expect(throws: FeedError.self) { try await client.posts() }
            #expect(error?.status == 502)
            #expect(error?.url?.absoluteString == server.url("/fault/status=502/posts").absoluteString)
        }
    }
}

@Suite("Podcast search")
struct PodcastSearchTests {
    @Test func searchURLIsBuiltWithComponents() throws {
        let http = HTTPFetcher()
        defer { Task { try await http.shutdown() } }
        let client = ITunesClient(baseURL: URL(string: "https://itunes.apple.com")!, http: http)
        #expect(
            client.searchURL(term: "caf\u{E9} & radio", media: "podcast", limit: 3).absoluteString
                == "https://itunes.apple.com/search?media=podcast&term=caf%C3%A9%20%26%20radio&limit=3"
        )
    }

    @Test func findsByNameArtistOrGenre() async throws {
        try await withClient { server, http in
            let client = ITunesClient(baseURL: server.baseURL, http: http)
            let radio = try await client.searchPodcasts(term: "radio", limit: 10)
            #expect(radio.map(\.title) == ["Loopback Radio", "Radio Waves Weekly", "The History of Radio"])
            #expect(radio[1].episodeCount == 212)
            #expect(try await client.searchPodcasts(term: "radio", limit: 2).count == 2)
            #expect(try await client.searchPodcasts(term: "history", limit: 10).count == 2)
            #expect(try await client.searchPodcasts(term: "zzzz", limit: 10).isEmpty)
        }
    }

    @Test func everySearchResultCanBeLookedUp() async throws {
        try await withClient { server, http in
            let client = ITunesClient(baseURL: server.baseURL, http: http)
            for result in try await client.searchPodcasts(term: "a", limit: 50) {
                let podcast = try await client.lookup(id: result.id, limit: 3)
                #expect(podcast.id == result.id)
                #expect(podcast.episodes.count == 3)
            }
        }
    }
}
