import FeedKit
import PlainText
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
        guard !posts.isEmpty else {
            context.output(user.map { "user \($0) has no posts" } ?? "no posts", json: .array([]))
            return .proceed
        }
        context.output(
            Render.posts(Array(posts.prefix(limit))),
            footer: posts.count > limit ? "(\(limit) of \(posts.count) posts; --limit N shows more)" : nil,
            json: .array(posts.prefix(limit).map { JSONRender.post($0) })
        )
        return .proceed
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
            throw .usage("'\(text)' is not a post number", synopsis: arguments.synopsis)
        }
        let (post, comments): (Post, [Comment]) = try await feed { () async throws(FeedError) in
            try await context.session.sources.posts.post(id: id)
        }
        context.output(
            Render.post(post, comments: comments, width: context.console.width),
            json: JSONRender.post(post, comments: comments)
        )
        return .proceed
    }
}

extension Command {
    private static let postUser = CommandOption<Int>("user", range: 1...Int(Int32.max))
    private static let postLimit = CommandOption<Int>("limit", range: 1...10_000)
    // Text, so that a word that is no post number is named as such.
    private static let postNumber = CommandArgument<String>("N")
}
