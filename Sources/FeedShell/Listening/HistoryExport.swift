import Foundation
import Library
import ShellKit

extension Command {
    /// `export history [FILE] [--format csv|json]`.
    static let historySpec = CommandSpec(
        "history",
        summary: "write the listening history: plays, bookmarks, finished episodes (CSV or JSON)",
        details: """
            To FILE, or to standard output without one; --format csv (the default, or
            json when FILE ends in .json). Each row is a play, a bookmark or a finished
            episode, with the podcast, the episode, its feed URL and GUID, and the
            times (seconds into the file, wall seconds, speed, silence skipped).
            """,
        arguments: [historyFile.spec],
        flags: [historyFormat.spec]
    )

    static func exportHistory(_ arguments: ParsedArguments, _ context: CommandContext) async throws(ShellError)
        -> any CommandResult
    {
        let path = arguments[historyFile]
        let format =
            arguments[historyFormat].flatMap(HistoryExport.Format.init(rawValue:))
            ?? (path?.lowercased().hasSuffix(".json") == true ? .json : .csv)
        var export = HistoryExport(format: format)
        if let library = try context.session.libraryIfMade() {
            export.plays = try await libraryCall { () async throws(LibraryError) in try await library.playbacks() }
            export.bookmarks = try await libraryCall { () async throws(LibraryError) in try await library.bookmarks() }
            export.finished = try await libraryCall { () async throws(LibraryError) in
                try await library.finishedEpisodes()
            }
        }
        guard let path else { return export }
        do {
            let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            try Data(export.document.utf8).write(to: file, options: .atomic)
        } catch {
            throw .unwritable(path, reason: describeFileError(error))
        }
        return HistoryExported(path: path, rows: export.rowCount)
    }

    private static let historyFile = CommandArgument<String>.path(optional: true)
    private static let historyFormat = CommandOption<String>(
        "format",
        choices: HistoryExport.Format.allCases.map(\.rawValue)
    )
}

/// Where `export history FILE` wrote how many rows.
struct HistoryExported: CommandResult {
    let path: String
    let rows: Int
}
