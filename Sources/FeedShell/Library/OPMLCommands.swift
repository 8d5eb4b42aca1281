import FeedKit
import Foundation
import Library
import PlainText
import ShellKit
import TerminalKit

extension Command {
    static let importOPML = Command(
        CommandSpec(
            "import",
            summary: "subscribe to the feeds of an OPML file",
            details: """
                Reads the outlines with an xmlUrl, however nested in folders, as gPodder,
                AntennaPod, castero and Apple Podcasts export them. Feeds already
                subscribed are skipped; outlines that are not feeds are reported. A
                feed URL with a user name and password in it keeps them apart, as
                'subscribe' does. Run 'update' to read the new subscriptions' feeds.
                """,
            arguments: [importedFile.spec]
        )
    ) { arguments, context throws(ShellError) in
        let path = try arguments.required(importedFile)
        let expanded = (path as NSString).expandingTildeInPath
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: expanded))
        } catch {
            throw .unreadableFile(path, reason: describeFileError(error))
        }
        let document: OPML.Document
        do throws(FeedParseError) {
            document = try OPML.parse(data)
        } catch {
            throw .unreadableFile(path, reason: error.description)
        }
        let library = try context.session.library()
        var added: [String] = []
        var skipped = 0
        var seen: Set<String> = []
        var problems = document.problems
        for entry in document.entries {
            let feedURL: URL
            let credentials: FeedCredentials?
            do throws(FeedCredentialsError) {
                (feedURL, credentials) = try FeedCredentials.split(entry.feedURL)
            } catch {
                problems.append(error.description)
                continue
            }
            guard seen.insert(feedURL.absoluteString).inserted else {
                skipped += 1
                continue
            }
            let (stored, created) = try await libraryCall { () async throws(LibraryError) in
                try await library.subscribe(feedURL: feedURL, title: entry.title ?? feedURL.absoluteString)
            }
            if created, let credentials, let id = stored.id {
                try await libraryCall { () async throws(LibraryError) in
                    try await library.setCredentials(credentials, of: id)
                }
            }
            if created { added.append(entry.title ?? feedURL.absoluteString) } else { skipped += 1 }
        }
        return Imported(added: added, skipped: skipped, problems: problems, feeds: document.entries.count)
    }

    static let exportOPML = Command(
        CommandSpec(
            "export",
            summary: "write the subscriptions as OPML 2.0",
            details: """
                To FILE, or to standard output without one. Other podcast clients import
                it. Private feeds are written without their user name and password unless
                --with-credentials is given (then keep the file to yourself). 'export
                history' writes the listening history instead (see 'help export history'):
                every play, bookmark and finished episode, with the feed URL and GUID
                another tool matches episodes by.
                """,
            arguments: [exportedFile.spec],
            flags: [withCredentials.spec],
            subcommands: [historySpec],
            verbOptional: true
        )
    ) { arguments, context throws(ShellError) in
        if arguments.subcommand == "history" { return try await exportHistory(arguments, context) }
        let all = try await subscriptions(context)
        var credentials: [Int64: FeedCredentials] = [:]
        if arguments[withCredentials] {
            let library = try context.session.library()
            credentials = try await libraryCall { () async throws(LibraryError) in try await library.allCredentials() }
        }
        let entries = all.compactMap { summary in
            URL(string: summary.podcast.feedURL).map { url in
                let shared = summary.podcast.id.flatMap { credentials[$0] }.map { $0.embedded(in: url) } ?? url
                return OPML.Entry(title: summary.podcast.title, feedURL: shared)
            }
        }
        let text = OPML.write(entries)
        guard let path = arguments[exportedFile] else { return ExportedOPML(opml: text) }
        do {
            let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            // With passwords in it, the file is its owner's alone from the start.
            if credentials.isEmpty {
                try Data(text.utf8).write(to: file, options: .atomic)
            } else {
                try PrivateFile.write(Data(text.utf8), to: file.path)
            }
        } catch {
            throw .unwritable(path, reason: describeFileError(error))
        }
        return Exported(path: path, count: entries.count)
    }
}

/// What `import` did: the titles subscribed to, how many were there already (or
/// repeated), and the outlines it could not read, of `feeds` in the file.
struct Imported: CommandResult {
    let added: [String]
    let skipped: Int
    let problems: [String]
    let feeds: Int

    private enum CodingKeys: CodingKey {
        case added
        case skipped
        case problems
    }
}

/// The OPML `export` wrote to standard output.
struct ExportedOPML: CommandResult {
    let opml: String
}

/// Where `export` wrote how many subscriptions.
struct Exported: CommandResult {
    let path: String
    let count: Int
}

extension Command {
    private static let importedFile = CommandArgument<String>.path()
    private static let exportedFile = CommandArgument<String>.path(optional: true)
    private static let withCredentials = CommandFlag("with-credentials")
}
