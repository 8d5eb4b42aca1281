import Foundation
import Library
import ShellKit
import SystemPackage

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
            FILE is made readable by you alone, and an existing FILE is not
            replaced. In the CSV, a field that begins with =, +, - or @ gets a '
            before it, so that a spreadsheet does not run it as a formula.
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
        let file = FilePath((path as NSString).expandingTildeInPath)
        // The history is private: 0600, and an existing file is never replaced.
        do {
            let descriptor = try FileDescriptor.open(
                file,
                .writeOnly,
                options: [.create, .exclusiveCreate, .closeOnExec, .noFollow],
                permissions: [.ownerReadWrite]
            )
            do {
                try descriptor.writeAll(Array(export.document.utf8))
                try descriptor.close()
            } catch {
                try? descriptor.close()
                _ = unlink(file.string)
                throw error
            }
        } catch {
            let reason =
                (error as? Errno) == .fileExists
                ? "it exists already; remove it or give another name" : describeFileError(error)
            throw .unwritable(path, reason: reason)
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
