import FeedKit
import Foundation
import Library
import PlainText
import ShellKit
import TerminalKit
import WebBasics

extension Command {
    static let subscribe = Command(
        CommandSpec(
            "subscribe",
            summary: "subscribe to a podcast and load its whole feed",
            details: """
                Takes an Apple podcast ID or Apple Podcasts URL (the feed comes from
                Apple's directory, and episodes keep Apple's file names), or a feed URL
                (RSS or Atom). Without an argument, subscribes to the loaded podcast.
                The feed is read at once; 'update' reads it again later. A private
                feed's user name and password come from the URL
                (https://USER:PASSWORD@host/feed) or from --user NAME, the password then
                asked without echo or taken from FEEDSH_FEED_PASSWORD; they are kept in
                the library apart from the URL, sent to the feed's own host only, and
                never shown.
                """,
            arguments: [subscribed.spec],
            flags: [user.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        var feedURL: URL
        var title: String
        var itunesID: Int64?
        var trackIDs: [String: Int64] = [:]
        var credentials: FeedCredentials?
        if let reference = arguments[subscribed], PodcastReference.id(from: reference) == nil {
            guard let url = URL(string: reference), url.scheme == "http" || url.scheme == "https", url.host != nil
            else {
                throw .usage(.notAPodcastOrFeed(reference), synopsis: arguments.synopsis)
            }
            do throws(FeedCredentialsError) {
                (feedURL, credentials) = try FeedCredentials.split(url, written: reference)
            } catch {
                throw .usage(.badFeedCredentials(error), synopsis: arguments.synopsis)
            }
            title = feedURL.absoluteString
        } else {
            let podcast: Podcast
            if let reference = arguments[subscribed],
                let id = PodcastReference.id(from: reference)
            {
                podcast = try await feed { () async throws(FeedError) in
                    try await session.sources.itunes.lookup(id: id, limit: 200)
                }
            } else {
                guard let loaded = await session.podcast else {
                    throw .usage(.nothingToSubscribe, synopsis: arguments.synopsis)
                }
                if let subscription = await session.subscription {
                    return AlreadySubscribed(title: subscription.podcast.title)
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
        if let user = arguments[user] {
            let password = try await askPassword(
                for: user,
                at: feedURL,
                given: session.configuration.feedPassword,
                variable: "FEEDSH_FEED_PASSWORD",
                synopsis: "subscribe FEED-URL --user NAME",
                context
            )
            credentials = FeedCredentials(user: user, password: password)
        }
        let updater = FeedUpdater(library: try session.library(), client: session.sources.feeds)
        let (fresh, created, result) = try await libraryCall { () async throws(LibraryError) in
            try await updater.subscribe(
                feedURL: feedURL,
                title: title,
                itunesID: itunesID,
                trackIDs: trackIDs,
                credentials: credentials
            )
        }
        // A new subscription is stored only with its first read: when that
        // failed or was interrupted, there is none.
        guard let fresh else {
            if case .failed(let reason) = result.status {
                throw .subscribeFailed(url: feedURL.redacted, reason: Advice.described(reason), code: reason.code)
            }
            throw .interrupted
        }
        let loaded = try await session.loadSubscription(fresh)
        var failure: String?
        if case .failed(let reason) = result.status { failure = reason.description }
        return Subscribed(
            title: fresh.title,
            feedURL: fresh.feedURL,
            itunesID: fresh.itunesID,
            created: created,
            episodeCount: loaded.episodes.count,
            updateFailure: failure
        )
    }
}

/// The subscription `subscribe` made (or found), with its episodes read, and why
/// reading its feed failed when it did.
struct Subscribed: CommandResult {
    let title: String
    let feedURL: String
    let itunesID: Int64?
    let created: Bool
    let episodeCount: Int
    let updateFailure: String?

    private enum CodingKeys: CodingKey {
        case title
        case feedURL
        case itunesID
        case created
        case episodeCount
    }
}

/// `subscribe` of the loaded podcast, which is a subscription already.
struct AlreadySubscribed: CommandResult {
    let title: String
    var created = false
}

/// The password for `user` at `url`: `given` (from the environment `variable`),
/// else asked at the terminal without echo; neither is a failure that says how to
/// give one. The blocking read waits on a thread of its own, not on one of the
/// few the downloads run on.
func askPassword(
    for user: String,
    at url: URL,
    given: String?,
    variable: String,
    synopsis: String,
    _ context: CommandContext
) async throws(ShellError) -> String {
    if let given { return given }
    let prompt = Render.passwordPrompt(user: user, host: url.host)
    // The command's spinner would draw over the prompt.
    context.report(.asking)
    let asked: String? = await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: SecretPrompt.read(prompt)) }
    }
    guard let asked, !asked.isEmpty else {
        throw .usage(.noPassword(user: user, variable: variable), synopsis: synopsis)
    }
    return asked
}

/// Runs a library call, turning its ``Library/LibraryError`` into a shell failure.
func libraryCall<T>(_ call: () async throws(LibraryError) -> T) async throws(ShellError) -> T {
    do {
        return try await call()
    } catch {
        throw .library(error)
    }
}

extension Command {
    private static let subscribed = CommandArgument<String>("ID|APPLE-PODCASTS-URL|FEED-URL", optional: true)
    private static let user = CommandOption<String>("user", placeholder: "NAME")
}
