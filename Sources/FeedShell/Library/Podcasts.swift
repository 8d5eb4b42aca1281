import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import ShellKit

extension Command {
    /// The subscriptions in `podcasts` order: by number.
    static func subscriptions(_ context: CommandContext) async throws(ShellError) -> [PodcastSummary] {
        let library = try context.session.library()
        return try await libraryCall { () async throws(LibraryError) in try await library.podcasts() }
    }

    /// Subscription `text` (its number in `podcasts`, which stays its own).
    static func subscription(
        _ text: String,
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> StoredPodcast {
        try await context.services.library.subscription(numbered: text, synopsis: arguments.synopsis)
    }

    /// `1-3, 5, 8-9`: the numbers there are, for an error about one that is not.
    static func numberList(_ numbers: [Int]) -> String {
        var runs: [(Int, Int)] = []
        for number in numbers.sorted() {
            if let last = runs.last, last.1 + 1 == number {
                runs[runs.count - 1].1 = number
            } else {
                runs.append((number, number))
            }
        }
        return runs.map { $0.0 == $0.1 ? "\($0.0)" : "\($0.0)-\($0.1)" }.joined(separator: ", ")
    }

    static let podcasts = Command(
        CommandSpec(
            "podcasts",
            summary: "list your subscriptions",
            details: """
                Numbered as subscribed: a number stays a subscription's until 'unsubscribe'
                and is never given again, so scripts and other shells can rely on it.
                Episodes, new and downloaded counts, the last update and the last error.
                'podcast N' loads one.
                """
        )
    ) { _, context throws(ShellError) in
        // Made on the first command that needs it, as every command makes it.
        _ = try context.session.library()
        let entries: [SubscriptionEntry]
        do throws(LibraryError) {
            entries = try await context.services.subscriptionEntries(describe: Advice.described)
        } catch {
            throw .library(error)
        }
        return Listing(
            items: entries,
            empty: .noSubscriptions,
            table: Render.subscriptions,
            json: JSONRender.subscriptions
        )
    }

    static let podcast = Command(
        CommandSpec(
            "podcast",
            summary: "load subscription N with its whole history",
            details: "N is the subscription's number in 'podcasts'.",
            arguments: [loadedSubscription.spec]
        )
    ) { arguments, context throws(ShellError) in
        let stored = try await subscription(arguments.required(loadedSubscription), arguments, context)
        let loaded = try await context.session.loadSubscription(stored)
        let statuses = context.json ? await context.session.statuses() : [:]
        return LoadedPodcast(podcast: loaded, statuses: statuses, marks: await context.session.marks)
    }

    static let unsubscribe = Command(
        CommandSpec(
            "unsubscribe",
            summary: "remove a subscription (downloaded files stay)",
            details: "Without N, the loaded subscription. Its episodes leave the library; files on disk are kept.",
            arguments: [leftSubscription.spec]
        )
    ) { arguments, context throws(ShellError) in
        let stored: StoredPodcast
        if let text = arguments[leftSubscription] {
            stored = try await subscription(text, arguments, context)
        } else {
            guard let loaded = await context.session.subscription?.podcast else {
                throw .usage(.noSubscriptionLoaded, synopsis: arguments.synopsis)
            }
            stored = loaded
        }
        let library = try context.session.library()
        try await libraryCall { () async throws(LibraryError) in try await library.unsubscribe(stored.id ?? -1) }
        await context.session.forgetSubscription(stored.id ?? -1)
        return Unsubscribed(title: stored.title, feedURL: stored.feedURL)
    }
}

/// The podcast `podcast`, `lookup` or `open` loaded, with its episodes' download
/// statuses (for `--json`) and library marks.
struct LoadedPodcast: CommandResult {
    let podcast: Podcast
    let statuses: [Int64: EpisodeStatus]
    var marks: EpisodeMarksLookup = [:]
}

/// The subscription `unsubscribe` removed.
struct Unsubscribed: CommandResult {
    let title: String
    let feedURL: String
}

extension Command {
    private static let loadedSubscription = CommandArgument<String>(
        "N",
        completion: .items(CompletionDomain.subscriptions)
    )
    private static let leftSubscription = CommandArgument<String>(
        "N",
        optional: true,
        completion: .items(CompletionDomain.subscriptions)
    )
}
