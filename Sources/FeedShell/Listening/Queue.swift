import Library
import PlainText
import ShellKit

extension Command {
    static let queue = Command(
        CommandSpec(
            "queue",
            summary: "list or change the play queue ('play queue' plays it)",
            details: """
                The play queue is kept in the library, across podcasts. 'queue add
                SELECTOR' adds episodes at its end (3, 2-4, P:E, P:2-4, new; one already
                queued keeps its place), 'queue rm N' takes entries out by their
                position (2, 1-3), 'queue move N M' moves entry N to position M, and
                'queue clear' empties it. 'play queue' plays it in order, each episode
                from its saved position; an episode leaves the queue when it is played
                to the end (or marked played).
                """,
            subcommands: [
                CommandSpec(
                    "add",
                    summary: "add episodes at the end",
                    arguments: [added.spec]
                ),
                CommandSpec(
                    "rm",
                    summary: "take entries out by position",
                    arguments: [removed.spec]
                ),
                CommandSpec(
                    "move",
                    summary: "move entry N to position M",
                    arguments: [moved.spec, position.spec]
                ),
                CommandSpec("clear", summary: "empty the queue"),
            ],
            verbOptional: true
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        // Only `add` needs a library made; the rest find no file an empty queue.
        let library = try session.libraryIfMade()
        switch arguments.subcommand {
        case "add":
            let selector = try arguments.required(added)
            let ids = try await session.libraryEpisodeIDs(selector, synopsis: arguments.synopsis)
            let library = try session.library()
            let added = try await libraryCall { () async throws(LibraryError) in try await library.enqueue(ids) }
            let count = try await QueueText.entries(library).count
            return QueueChanged(added: added, removed: nil, count: count, already: ids.count - added)
        case "rm":
            let entries = try await QueueText.entries(library)
            let selector = try arguments.required(removed)
            let positions = try QueueText.positions(selector, of: entries, synopsis: arguments.synopsis)
            let ids = positions.map { entries[$0 - 1].episodeID }
            try await libraryCall { () async throws(LibraryError) in try await library?.dequeue(ids) }
            return QueueChanged(added: nil, removed: ids.count, count: entries.count - ids.count)
        case "move":
            let entries = try await QueueText.entries(library)
            let from = try arguments.required(moved)
            let to = try arguments.required(position)
            let source = try QueueText.positions(from, of: entries, synopsis: arguments.synopsis)[0]
            guard case .ranges(let ranges) = to.items, let target = ranges.first?.lowerBound else {
                throw .usage(arguments.usage())
            }
            let moved = try await libraryCall { () async throws(LibraryError) in
                try await library?.moveInQueue(from: source, to: target) ?? false
            }
            guard moved else { throw .usage(arguments.usage()) }
            return QueueListing(
                entries: try await QueueText.entries(library),
                moved: (source, min(target, entries.count))
            )
        case "clear":
            let count = try await libraryCall { () async throws(LibraryError) in try await library?.clearQueue() ?? 0 }
            return QueueChanged(added: nil, removed: count, count: 0, cleared: true)
        default:
            return QueueListing(entries: try await QueueText.entries(library))
        }
    }
}

/// How `queue add`, `rm` or `clear` changed the queue: how many were added (and
/// how many of those were there `already`) or removed, and how many it has now.
struct QueueChanged: CommandResult {
    let added: Int?
    let removed: Int?
    let count: Int
    var already = 0
    /// `queue clear` emptied it.
    var cleared = false

    private enum CodingKeys: CodingKey {
        case added
        case removed
        case count
    }
}

/// The queue as `queue` lists it, after `queue move` moved entry `from` to `to`.
struct QueueListing: CommandResult {
    let entries: [QueueEntry]
    var moved: (from: Int, to: Int)?
}

/// The queue as `queue` shows it.
enum QueueText {
    /// The queue's entries; none without a library.
    static func entries(_ library: Library?) async throws(ShellError) -> [QueueEntry] {
        guard let library else { return [] }
        return try await libraryCall { () async throws(LibraryError) in try await library.queue() }
    }

    /// The positions `selector` names, or a usage error naming what is past the end.
    static func positions(_ selector: Selector, of entries: [QueueEntry], synopsis: String) throws(ShellError)
        -> [Int]
    {
        switch selector.numbers(count: entries.count) {
        case .success(let numbers): return numbers
        case .failure(let problem):
            throw .usage(.selector(problem, noun: "queue entry", count: entries.count), synopsis: synopsis)
        }
    }
}

extension Command {
    private static let added = CommandArgument<Selector>(
        "SELECTOR",
        forms: [.several, .subscription, .new],
        noun: "episode",
        completion: .selector(CompletionDomain.episodes)
    )
    private static let removed = CommandArgument<Selector>("N", forms: .several, noun: "queue entry")
    private static let moved = CommandArgument<Selector>("N", forms: [], noun: "queue entry")
    private static let position = CommandArgument<Selector>("M", forms: [], noun: "position")
}
