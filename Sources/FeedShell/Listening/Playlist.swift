import FeedServices
import Library
import PlainText
import ShellKit
import TerminalKit

extension Command {
    static let playlists = Command(
        CommandSpec(
            "playlists",
            summary: "list the smart playlists, with how many episodes each holds now",
            details: "See 'help playlist'."
        )
    ) { _, context throws(ShellError) in
        PlaylistsListing(playlists: try await coreCall { try await context.services.playlists() })
    }

    static let playlist = Command(
        CommandSpec(
            "playlist",
            summary: "list, save or remove a smart playlist (a saved filter of the library)",
            details: """
                A smart playlist is a filter kept by name and evaluated each time it is
                used, so it follows the library. 'playlist add NAME FILTER...' saves one
                (replacing one of that name); 'playlist NAME' lists its episodes with
                their P:E; 'playlist rm NAME' removes it. 'play playlist NAME' plays
                through it as 'play queue' does (each episode from its saved place, the
                list evaluated again after each), and 'get playlist NAME' downloads it.
                Filter words: unplayed (in progress too), played, in-progress,
                downloaded, new; podcast:P (again for more: an episode of any of them);
                longer:20m and shorter:20m (over, under); since:7d or since:2026-11-01;
                words:TEXT (the 'find' index: title, show notes, transcripts);
                sort:newest|oldest|shortest|longest (newest when not given); limit:N.
                Words of different kinds all apply. Names are 1 to 40 letters, digits,
                - or _.
                """,
            arguments: [listedName.spec],
            subcommands: [
                CommandSpec("add", summary: "save a filter as a playlist", arguments: [addedName.spec, filter.spec]),
                CommandSpec("rm", summary: "remove a playlist", arguments: [removedName.spec]),
            ],
            verbOptional: true
        )
    ) { arguments, context throws(ShellError) in
        let services = context.services
        switch arguments.subcommand {
        case "add":
            let name = try arguments.required(addedName)
            let words = arguments[filter] ?? []
            return PlaylistChanged.saved(
                try await coreCall { try await services.savePlaylist(name: name, words: words) }
            )
        case "rm":
            let name = try arguments.required(removedName)
            try await coreCall { try await services.removePlaylist(name: name) }
            return PlaylistChanged.removed(name)
        default:
            guard let name = arguments[listedName] else {
                return PlaylistsListing(playlists: try await coreCall { try await services.playlists() })
            }
            return PlaylistListing(value: try await coreCall { try await services.playlistEpisodes(named: name) })
        }
    }
}

extension Command {
    private static let listedName = CommandArgument<String>(
        "NAME",
        optional: true,
        completion: .items(CompletionDomain.playlists)
    )
    private static let addedName = CommandArgument<String>("NAME", completion: .items(CompletionDomain.playlists))
    private static let removedName = CommandArgument<String>("NAME", completion: .items(CompletionDomain.playlists))
    private static let filter = CommandArgument<[String]>.words("FILTER")
}

extension PlaylistProblem: CommandFailure {
    var failureCode: String { code }
}

/// `playlists`: each playlist, its filter and how many it holds.
struct PlaylistsListing: CommandResult {
    let playlists: [PlaylistSummary]

    func text(on page: Page) -> String? {
        guard !playlists.isEmpty else {
            return "no playlists: 'playlist add NAME FILTER...' saves one ('help playlist')"
        }
        return page.render(
            Table(
                columns: [
                    .init("Name"), .init("Episodes", rightAligned: true),
                    .init("Filter", wraps: true),
                ],
                rows: playlists.map { [SafeText.line($0.name), String($0.count), SafeText.line($0.filter)] }
            )
        )
    }

    func encode(to encoder: any Encoder) throws {
        try PlaylistList(playlists).encode(to: encoder)
    }
}

/// `playlist NAME`: its episodes now, numbered in its order, with their `P:E`.
struct PlaylistListing: CommandResult {
    let value: PlaylistEpisodes

    func text(on page: Page) -> String? {
        let head = "\(SafeText.line(value.name)) (\(SafeText.line(value.filter))): "
        guard !value.episodes.isEmpty else { return head + "no episodes match now" }
        let table = Table(
            columns: [
                .init("#", rightAligned: true), .init("Ref", rightAligned: true), .init("Date"),
                .init("Length", rightAligned: true),
                .init("Podcast", maxWidth: 24, wraps: true, fit: .init(order: 1, minWidth: 8)),
                .init("Title", wraps: true),
            ],
            rows: value.episodes.map { entry in
                [
                    String(entry.number), entry.ref, entry.date.map { Formatting.date($0) } ?? "-",
                    entry.seconds.map { Formatting.duration(.seconds($0)) } ?? "-", entry.podcast, entry.title,
                ]
            }
        )
        return head + Formatting.count(value.episodes.count, "episode") + "\n" + page.render(table)
    }

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

/// `playlist add` and `playlist rm`.
enum PlaylistChanged: CommandResult {
    case saved(PlaylistSaved)
    case removed(String)

    func text(on page: Page) -> String? {
        switch self {
        case .saved(let saved):
            "\(saved.replaced ? "replaced" : "saved") playlist \(SafeText.line(saved.name)) "
                + "(\(SafeText.line(saved.filter))): \(Formatting.count(saved.count, "episode")) now"
        case .removed(let name): "removed playlist \(SafeText.line(name))"
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .saved(let saved): try saved.encode(to: encoder)
        case .removed(let name): try Removed(removed: name).encode(to: encoder)
        }
    }

    private struct Removed: Encodable {
        var removed: String
    }
}
