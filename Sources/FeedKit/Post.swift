import Foundation

/// A post in the JSONPlaceholder format.
public struct Post: Decodable, Identifiable, Sendable, Hashable {
    public let id: Int
    public let userId: Int
    public let title: String
    public let body: String

    public init(id: Int, userId: Int, title: String, body: String) {
        self.id = id
        self.userId = userId
        self.title = title
        self.body = body
    }
}

/// A comment on a post (`/posts/N/comments`).
public struct Comment: Decodable, Identifiable, Sendable, Hashable {
    public let id: Int
    public let postId: Int
    public let name: String
    public let email: String
    public let body: String
}

/// A JSONPlaceholder-style API: `{base}/posts`, `{base}/posts/N`,
/// `{base}/posts/N/comments`.
public struct PostsClient: Sendable {
    public let baseURL: URL
    private let http: any HTTPFetching

    public init(baseURL: URL, http: any HTTPFetching) {
        self.baseURL = baseURL
        self.http = http
    }

    /// Every post, or one user's (`?userId=N`).
    public func posts(userId: Int? = nil) async throws(FeedError) -> [Post] {
        var components = URLComponents(url: baseURL.appendingPathComponent("posts"), resolvingAgainstBaseURL: false)!
        if let userId { components.queryItems = [URLQueryItem(name: "userId", value: String(userId))] }
        return try await http.decode([Post].self, from: components.url!)
    }

    /// One post with its comments. An unknown id is ``FeedError/Code/notFound`` with
    /// the ids that exist (`no post 101 (ids 1-100)`).
    public func post(id: Int) async throws(FeedError) -> (Post, [Comment]) {
        let url = baseURL.appendingPathComponent("posts").appendingPathComponent(String(id))
        let post: Post
        do {
            post = try await http.decode(Post.self, from: url)
        } catch  where error.status == 404 {
            let ids = (try? await posts().map(\.id)) ?? []
            let range = ids.min().flatMap { low in ids.max().map { " (ids \(low)-\($0))" } } ?? ""
            throw .notFound("no post \(id)\(range)")
        }
        let comments = try await http.decode([Comment].self, from: url.appendingPathComponent("comments"))
        return (post, comments)
    }
}
