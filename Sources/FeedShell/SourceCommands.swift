import FeedKit

extension Command {
    static let defaultPostsLimit = 20

    static let posts = Command(
        name: "posts",
        synopsis: "posts [--user N] [--limit N]",
        summary: "list posts: id, user and title",
        details:
            "From the posts API (JSONPlaceholder format). --user shows one user's; --limit (default \(defaultPostsLimit)) how many.",
        flags: ["--user", "--limit"]
    ) { arguments, context throws(ShellError) in
        let user = try arguments.intOption("user", in: 1...Int(Int32.max))
        let limit = try arguments.intOption("limit", in: 1...10_000) ?? defaultPostsLimit
        try arguments.finish()
        let posts: [Post] = try await feed { () async throws(FeedError) in
            try await context.session.posts.posts(userId: user)
        }
        guard !posts.isEmpty else {
            context.output(user.map { "user \($0) has no posts" } ?? "no posts", json: .array([]))
            return .proceed
        }
        let rows = posts.prefix(limit).map { [String($0.id), String($0.userId), TerminalText.line($0.title)] }
        context.outputTable(
            header: ["#", "User", "Title"],
            rows: rows,
            rightAligned: [0, 1],
            footer: posts.count > limit ? "(\(limit) of \(posts.count) posts; --limit N shows more)" : nil,
            json: .array(posts.prefix(limit).map { JSONRender.post($0) })
        )
        return .proceed
    }

    static let post = Command(
        name: "post",
        synopsis: "post N",
        summary: "show a post with its comments"
    ) { arguments, context throws(ShellError) in
        guard let text = try arguments.positional() else { throw .usage(synopsis: arguments.synopsis) }
        try arguments.finish()
        guard let id = Int(text), id > 0 else {
            throw .usage("'\(TerminalText.line(text))' is not a post number", synopsis: arguments.synopsis)
        }
        let (post, comments): (Post, [Comment]) = try await feed { () async throws(FeedError) in
            try await context.session.posts.post(id: id)
        }
        var lines = [
            TerminalText.line(post.title), "post \(post.id) by user \(post.userId)", "", TerminalText.block(post.body),
        ]
        lines += ["", comments.isEmpty ? "No comments." : "Comments (\(comments.count)):"]
        for comment in comments {
            lines.append("")
            lines.append("  \(TerminalText.line(comment.name)) <\(TerminalText.line(comment.email))>")
            lines += TerminalText.block(comment.body).split(separator: "\n", omittingEmptySubsequences: false)
                .map { "    " + $0 }
        }
        context.output(lines.joined(separator: "\n"), json: JSONRender.post(post, comments: comments))
        return .proceed
    }

    static let search = Command(
        name: "search",
        synopsis: "search TERM [--limit N]",
        summary: "find podcasts by name; 'open N' loads one",
        details: "Searches the iTunes podcast directory. --limit sets how many results (1-200, default 10).",
        flags: ["--limit"]
    ) { arguments, context throws(ShellError) in
        let limit = try arguments.intOption("limit", in: 1...200) ?? 10
        let term = try arguments.text()
        let results: [PodcastSearchResult] = try await feed { () async throws(FeedError) in
            try await context.session.searchPodcasts(term: term, limit: limit)
        }
        guard !results.isEmpty else {
            context.output("no podcasts match '\(TerminalText.line(term))'", json: .array([]))
            return .proceed
        }
        let rows = results.enumerated().map { index, result in
            [
                String(index + 1), result.episodeCount.map(String.init) ?? "-",
                TerminalText.line(result.title) + (result.artist.map { " · " + TerminalText.line($0) } ?? ""),
            ]
        }
        context.outputTable(
            header: ["#", "Episodes", "Podcast"],
            rows: rows,
            rightAligned: [0, 1],
            json: .array(
                results.enumerated().map { index, result in
                    .object([
                        "number": .int(index + 1), "id": .int(result.id), "title": .string(result.title),
                        "artist": .string(result.artist), "episodeCount": result.episodeCount.map { .int($0) },
                        "genre": .string(result.genre),
                    ])
                }
            )
        )
        return .proceed
    }

    static let open = Command(
        name: "open",
        synopsis: "open N",
        summary: "load search result N, as 'lookup' does"
    ) { arguments, context throws(ShellError) in
        let results = await context.session.searchResults
        guard !results.isEmpty else { throw .other("no search results: run 'search TERM' first") }
        arguments.synopsis = "open N (1-\(results.count))"
        guard let text = try arguments.positional() else { throw .usage(synopsis: arguments.synopsis) }
        try arguments.finish()
        guard let number = Int(text), results.indices.contains(number - 1) else {
            throw .usage("no result '\(TerminalText.line(text))'", synopsis: arguments.synopsis)
        }
        var lookup = Arguments([String(results[number - 1].id)], synopsis: Command.lookup.synopsis)
        return try await Command.lookup.action(&lookup, context)
    }
}
