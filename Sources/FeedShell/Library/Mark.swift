import Library
import ShellKit

extension Command {
    static let mark = Command(
        CommandSpec(
            "mark",
            summary: "mark episodes played, unplayed or old (not new)",
            details: """
                SELECTOR names episodes of the loaded subscription (3, 2-4, 1,3, all), of
                subscription P from anywhere (P:3, P:2-4, P:all), or 'new' for every new
                episode of the library. Played episodes are no longer new.
                """,
            arguments: [markKind.spec, marked.spec]
        )
    ) { arguments, context throws(ShellError) in
        let mark = try arguments.required(markKind)
        let selector = try arguments.required(marked)
        let session = context.session
        let ids = try await session.libraryEpisodeIDs(selector, synopsis: arguments.synopsis)
        let library = try session.library()
        try await libraryCall { () async throws(LibraryError) in try await library.mark(ids, mark) }
        if let loaded = await session.subscription?.podcast {
            try await session.loadSubscription(loaded)
        }
        return Marked(mark: mark.rawValue, count: ids.count)
    }
}

/// How many episodes `mark` marked, and how.
struct Marked: CommandResult {
    let mark: String
    let count: Int
}

extension Library.Mark: ArgumentChoice {}

extension Command {
    private static let markKind = CommandArgument<Library.Mark>("played|unplayed|old")
    private static let marked = CommandArgument<Selector>(
        "SELECTOR",
        forms: [.several, .subscription, .new],
        noun: "episode",
        completion: .selector(CompletionDomain.episodes)
    )
}
