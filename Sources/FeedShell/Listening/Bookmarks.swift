import Foundation
import Library
import Playback
import ShellKit

extension Command {
    static let bookmark = Command(
        CommandSpec(
            "bookmark",
            summary: "mark a moment of an episode, with a note ('bookmark rm N' removes one)",
            details: """
                'bookmark P:E 12:34 great answer' marks 12:34 into episode P:E (or N of
                the loaded subscription) with the note. While an episode plays, b in mpv
                marks where it is. 'bookmarks' lists them, numbered b1, b2...; 'play bN'
                plays from one; 'bookmark rm N' removes bookmark N.
                """,
            arguments: [markedEpisode.spec, markedTime.spec, markNote.spec],
            subcommands: [
                CommandSpec("rm", summary: "remove bookmark N", arguments: [removedMark.spec])
            ],
            verbOptional: true
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        if arguments.subcommand == "rm" {
            guard case .ranges(let ranges) = try arguments.required(removedMark).items,
                let number = ranges.first?.lowerBound
            else { throw .usage(arguments.usage()) }
            let library = try session.libraryIfMade()
            let marks = try await libraryCall { () async throws(LibraryError) in try await library?.bookmarks() ?? [] }
            guard marks.indices.contains(number - 1), let id = marks[number - 1].id else {
                throw .usage(.noSuchBookmark(number, count: marks.count), synopsis: arguments.synopsis)
            }
            _ = try await libraryCall { () async throws(LibraryError) in try await library?.removeBookmark(id) }
            return BookmarkRemoved(number: number, bookmark: marks[number - 1], left: marks.count - 1)
        }
        guard let selector = arguments[markedEpisode], let timeText = arguments[markedTime] else {
            throw .usage(arguments.usage())
        }
        guard let seconds = ListeningTime.seconds(timeText) else {
            throw .usage(.badTime(timeText), synopsis: arguments.synopsis)
        }
        let ids = try await session.libraryEpisodeIDs(selector, synopsis: arguments.synopsis)
        guard let episodeID = ids.first else { throw .noSubscriptionLoaded }
        let library = try session.library()
        // A moment past the end could never be played: refused with the length.
        let episode = try await libraryCall { () async throws(LibraryError) in try await library.episode(episodeID) }
        if let length = episode?.seconds, length > 0, seconds >= length {
            throw .failure(ListeningFailure.pastTheEnd(ref: selector.text, at: seconds, length: length))
        }
        let note = arguments[markNote].flatMap { $0.isEmpty ? nil : $0 }
        let made = try await libraryCall { () async throws(LibraryError) in
            try await library.addBookmark(episodeID: episodeID, at: seconds, note: note)
        }
        guard let made else { throw .noSubscriptionLoaded }
        let count = try await libraryCall { () async throws(LibraryError) in try await library.bookmarks().count }
        return BookmarkMade(number: count, bookmark: made)
    }

    static let bookmarks = Command(
        CommandSpec(
            "bookmarks",
            summary: "list bookmarks (of one episode: bookmarks P:E), with the transcript's words",
            details: """
                Lists every bookmark, numbered b1, b2... as 'play bN' and 'bookmark rm N'
                take them: the episode's P:E, its podcast and title, the time, the note,
                and when the episode has a transcript ('transcript P:E' fetches one),
                the words said at that time. With an episode, only its bookmarks.
                """,
            arguments: [listedEpisode.spec]
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        guard let library = try session.libraryIfMade() else { return BookmarkListing(entries: []) }
        var only: Int64?
        if let selector = arguments[listedEpisode] {
            only = try await session.libraryEpisodeIDs(selector, synopsis: arguments.synopsis).first
        }
        let marks = try await libraryCall { () async throws(LibraryError) in try await library.bookmarks() }
        let resolved = try await libraryCall { () async throws(LibraryError) in
            try await library.resolve(marks.compactMap(\.episodeRef))
        }
        let refs = Dictionary(resolved.map { ($0.episodeRef, $0.ref) }) { first, _ in first }
        var entries: [BookmarkListing.Entry] = []
        for (index, mark) in marks.enumerated() where only == nil || mark.episodeID == only {
            let words = try? await mark.episodeID.asyncFlatMap { id in
                try await library.transcriptWords(ofEpisode: id, at: mark.at)
            }
            entries.append(
                BookmarkListing.Entry(
                    number: index + 1,
                    bookmark: mark,
                    ref: mark.episodeRef.flatMap { refs[$0] },
                    words: words ?? nil
                )
            )
        }
        return BookmarkListing(entries: entries)
    }
}

extension Optional where Wrapped: Sendable {
    /// `flatMap` with an asynchronous, throwing transform.
    fileprivate func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}

/// A bookmark `bookmark` made: `b3`.
struct BookmarkMade: CommandResult {
    let number: Int
    let bookmark: Bookmark
}

/// A bookmark `bookmark rm` removed.
struct BookmarkRemoved: CommandResult {
    let number: Int
    let bookmark: Bookmark
    let left: Int
}

/// The bookmarks as `bookmarks` lists them.
struct BookmarkListing: CommandResult {
    struct Entry: Sendable {
        /// N of `bN`.
        let number: Int
        let bookmark: Bookmark
        /// The episode's `P:E` now, while it is in the library.
        let ref: String?
        /// The transcript's words at its time.
        let words: String?
    }

    let entries: [Entry]
}

extension Command {
    private static let markedEpisode = CommandArgument<Selector>(
        "N|P:E",
        forms: .oneEpisode,
        noun: "episode",
        completion: .items(CompletionDomain.episodes)
    )
    private static let markedTime = CommandArgument<String>("TIME")
    private static let markNote = CommandArgument<String>("NOTE", optional: true, rest: true)
    private static let removedMark = CommandArgument<Selector>("N", forms: [], noun: "bookmark")
    private static let listedEpisode = CommandArgument<Selector>(
        "N|P:E",
        forms: .oneEpisode,
        noun: "episode",
        optional: true,
        completion: .items(CompletionDomain.episodes)
    )
}
