import FeedKit
import Foundation
import Library

/// What keeps `search --index` from asking the Podcast Index.
struct PodcastIndexFailure: CommandFailure {
    /// Which of key and secret are missing.
    let missing: [String]

    var failureCode: String { "no-index-key" }

    var description: String {
        """
        search --index needs a Podcast Index API key and secret (\(missing.joined(separator: " and ")) not set): \
        get them free at https://api.podcastindex.org/signup, then set FEEDSH_PODCASTINDEX_KEY and \
        FEEDSH_PODCASTINDEX_SECRET, or 'set podcastindex-key KEY' and 'set podcastindex-secret SECRET'
        """
    }
}

extension Session {
    /// The Podcast Index client, with the key and secret from the environment (or
    /// `--demo`), else from the settings.
    func podcastIndex() async throws(ShellError) -> PodcastIndexClient {
        let settings = await settingsInEffect()
        let key = settings.values[.podcastIndexKey]
        let secret = settings.values[.podcastIndexSecret]
        guard let key, let secret else {
            throw .failure(
                PodcastIndexFailure(
                    missing: [key == nil ? "key" : nil, secret == nil ? "secret" : nil].compactMap { $0 }
                )
            )
        }
        return PodcastIndexClient(
            baseURL: configuration.endpoints.podcastIndex,
            credentials: PodcastIndexCredentials(key: key, secret: secret),
            http: sources.http
        )
    }

    /// Reads the feed at `url` and loads it as the podcast (not a subscription):
    /// its newest `limit` episodes. A feed already subscribed to loads as the
    /// subscription, as `podcast N` would.
    func loadFeed(_ url: URL, limit: Int) async throws(ShellError) -> Podcast {
        if let library = existingLibrary(),
            let stored = try? await library.podcast(feedURL: url)
        {
            return try await loadSubscription(stored)
        }
        let outcome: FeedClient.Outcome
        do throws(FeedError) {
            outcome = try await sources.feeds.fetch(url)
        } catch {
            throw .feed(error)
        }
        switch outcome {
        case .fetched(let fetched, _, _, _):
            let podcast = Podcast(feed: fetched, url: url, limit: limit)
            load(podcast)
            return podcast
        case .gone:
            throw .feed(.httpStatus(410, url: url))
        case .notModified:
            // Asked without validators: a 304 is the server's mistake.
            throw .feed(.httpStatus(304, url: url))
        }
    }
}
