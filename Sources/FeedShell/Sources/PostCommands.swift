import FeedKit
import ShellKit

extension Command {
    static let defaultPostsLimit = 20

    static let posts = Command(
        CommandSpec(
            "posts",
            summary: "list posts: id, user and title",
            details:
                "From the posts API (JSONPlaceholder format). --user shows one user's; --limit (default \(defaultPostsLimit)) how many.",
            flags: [
                postUser.spec, postLimit.spec,
            ],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let user = arguments[postUser]
        let limit = arguments[postLimit] ?? defaultPostsLimit
        let posts: [Post] = try await feed { () async throws(FeedError) in
            try await context.session.sources.posts.posts(userId: user)
        }
        return PostList(posts: posts, limit: limit, user: user)
    }

    static let post = Command(
        CommandSpec(
            "post",
            summary: "show a post with its comments",
            arguments: [postNumber.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let text = try arguments.required(postNumber)
        guard let id = Int(text), id > 0 else {
            throw .usage(.notAPostNumber(text), synopsis: arguments.synopsis)
        }
        let (post, comments): (Post, [Comment]) = try await feed { () async throws(FeedError) in
            try await context.session.sources.posts.post(id: id)
        }
        return PostShown(post: post, comments: comments)
    }
}

/// The first `limit` of the posts `posts` listed (of `user`, when one was given).
struct PostList: CommandResult {
    let posts: [Post]
    let limit: Int
    let user: Int?
}

/// A post with its comments.
struct PostShown: CommandResult {
    let post: Post
    let comments: [Comment]
}

extension Command {
    private static let postUser = CommandOption<Int>("user", range: 1...Int(Int32.max))
    private static let postLimit = CommandOption<Int>("limit", range: 1...10_000)
    // Text, so that a word that is no post number is named as such.
    private static let postNumber = CommandArgument<String>("N")
}
