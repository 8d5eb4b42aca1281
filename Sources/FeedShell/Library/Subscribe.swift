import FeedKit
import Foundation
import Library
import ShellKit
import TerminalKit

extension Command {
    static let subscribe = Command(
        CommandSpec(
            "subscribe",
            summary: "subscribe to a podcast and load its whole feed",
            details: """
                Takes an Apple podcast ID or Apple Podcasts URL (the feed comes from
                Apple's directory, and episodes keep Apple's file names), or a feed URL
                (RSS or Atom). Without an argument, subscribes to the loaded podcast.
                The feed is read at once; 'update' reads it again later.
                """,
            arguments: [ArgumentSpec("ID|APPLE-PODCASTS-URL|FEED-URL", optional: true)],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        var feedURL: URL
        var title: String
        var itunesID: Int64?
        var trackIDs: [String: Int64] = [:]
        if let reference = arguments["ID|APPLE-PODCASTS-URL|FEED-URL"], PodcastReference.id(from: reference) == nil {
            guard let url = URL(string: reference), url.scheme == "http" || url.scheme == "https", url.host != nil
            else {
                throw .usage(
                    "'\(TerminalText.line(reference))' is not a podcast ID, an Apple Podcasts URL or a feed URL",
                    synopsis: arguments.synopsis
                )
            }
            feedURL = url
            title = url.absoluteString
        } else {
            let podcast: Podcast
            if let reference = arguments["ID|APPLE-PODCASTS-URL|FEED-URL"],
                let id = PodcastReference.id(from: reference)
            {
                podcast = try await feed { () async throws(FeedError) in
                    try await session.itunes.lookup(id: id, limit: 200)
                }
            } else {
                guard let loaded = await session.podcast else {
                    throw .usage(
                        "nothing to subscribe to: give an ID or a feed URL, or load a podcast",
                        synopsis: arguments.synopsis
                    )
                }
                if let subscription = await session.subscription {
                    context.output(
                        "already subscribed to \(TerminalText.line(subscription.podcast.title))",
                        json: .object(["title": .string(subscription.podcast.title), "created": .bool(false)])
                    )
                    return .proceed
                }
                podcast = loaded
            }
            guard let url = podcast.feedURL else {
                throw .noFeed(podcast: podcast.title)
            }
            feedURL = url
            title = podcast.title
            // A podcast read from its feed (a Podcast Index result) has no Apple IDs.
            itunesID = podcast.appleID
            if itunesID != nil {
                for episode in podcast.episodes {
                    if let guid = episode.guid { trackIDs[guid] = episode.id }
                }
            }
        }
        let library = try await session.library()
        let (stored, created) = try await libraryCall { () async throws(LibraryError) in
            try await library.subscribe(feedURL: feedURL, title: title, itunesID: itunesID)
        }
        let updater = FeedUpdater(library: library, client: session.feeds)
        let result = await updater.update(stored, trackIDs: trackIDs)
        if case .failed(let reason) = result.status, created {
            // A feed that cannot be read is not kept as a subscription.
            try? await library.unsubscribe(stored.id ?? -1)
            throw .subscribeFailed(url: feedURL.absoluteString, reason: reason.description, code: reason.code)
        }
        let fresh =
            try await libraryCall { () async throws(LibraryError) in try await library.podcast(stored.id ?? -1) }
            ?? stored
        let loaded = try await session.loadSubscription(fresh)
        let verb = created ? "subscribed to" : "already subscribed to"
        var text = "\(verb) \(TerminalText.line(fresh.title)): \(loaded.episodes.count) episodes"
        if case .failed(let reason) = result.status {
            text += "\nupdate failed: \(TerminalText.line(reason.description))"
        }
        context.output(
            text,
            json: .object([
                "title": .string(fresh.title), "feedURL": .string(fresh.feedURL),
                "itunesID": fresh.itunesID.map { .int($0) }, "created": .bool(created),
                "episodeCount": .int(loaded.episodes.count),
            ])
        )
        return .proceed
    }
}

/// Runs a library call, turning its ``Library/LibraryError`` into a shell failure.
func libraryCall<T>(_ call: () async throws(LibraryError) -> T) async throws(ShellError) -> T {
    do {
        return try await call()
    } catch {
        throw .library(error)
    }
}
