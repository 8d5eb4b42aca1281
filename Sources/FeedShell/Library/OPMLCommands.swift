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
        var lines: [SafeLine] = [
            "imported \(added.count) of \(Formatting.count(document.entries.count, "feed")) (\(skipped) already subscribed or repeated)"
        ]
        lines += problems.map { "skipped \($0)" }
        if !added.isEmpty { lines.append("'update' reads their feeds") }
        context.output(
            SafeLine.lines(lines),
            json: .object([
                "added": .array(added.map { .string($0) }), "skipped": .int(skipped),
                "problems": .array(problems.map { .string($0) }),
            ])
        )
        return .proceed
    }

    static let exportOPML = Command(
        CommandSpec(
            "export",
            summary: "write the subscriptions as OPML 2.0",
            details: """
                To FILE, or to standard output without one. Other podcast clients import
                it. Private feeds are written without their user name and password unless
                --with-credentials is given (then keep the file to yourself).
                """,
            arguments: [exportedFile.spec],
            flags: [withCredentials.spec]
        )
    ) { arguments, context throws(ShellError) in
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
        guard let path = arguments[exportedFile] else {
            context.output(text, json: .object(["opml": .string(text)]))
            return .proceed
        }
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
        context.say(
            "exported \(Formatting.count(entries.count, "subscription")) to \(path)",
            json: .object(["path": .string(path), "count": .int(entries.count)])
        )
        return .proceed
    }
}

extension Command {
    private static let importedFile = CommandArgument<String>.path()
    private static let exportedFile = CommandArgument<String>.path(optional: true)
    private static let withCredentials = CommandFlag("with-credentials")
}
