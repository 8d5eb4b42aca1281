import Foundation
import HTTPSupport
import Library
import PlainText
import WebBasics

/// One subscription as every front end gives it: `podcasts --json`, mcp's
/// `subscriptions` and the web page's API encode this value, with these keys in
/// this order, absent values as `null` and the date as ISO 8601 text.
package struct SubscriptionEntry: Codable, Sendable, Equatable {
    /// Its number, kept from `subscribe` to `unsubscribe`.
    package var number: Int
    package var title: String
    package var author: String?
    /// The feed's address, without credentials and with query secrets starred.
    package var feedURL: String
    /// Apple's collection ID, for a podcast subscribed from Apple's directory.
    package var itunesID: Int64?
    package var episodeCount: Int
    package var newCount: Int
    /// Episodes whose file is on disk, whichever feedsh downloaded it.
    package var downloadedCount: Int
    /// The last update that read the feed; nil before the first.
    package var updated: Date?
    /// Why the last update failed, in words (`gone` for a 410); nil when it did not.
    package var error: String?
    /// The failure's stable code (`http-status`, `gone`...).
    package var code: String?

    /// `summary` with `downloaded` files on disk; a failure put in words by
    /// `describe` (a front end may add its advice).
    package init(
        _ summary: PodcastSummary,
        downloaded: Int? = nil,
        describe: (UpdateFailure) -> String = { $0.description }
    ) {
        let podcast = summary.podcast
        number = podcast.number
        title = SafeText.line(podcast.title)
        author = podcast.author.map(SafeText.line)
        feedURL = URL.redacted(podcast.feedURL)
        itunesID = podcast.itunesID
        episodeCount = summary.episodeCount
        newCount = summary.newCount
        downloadedCount = downloaded ?? summary.downloadedCount
        updated = podcast.updated
        error = podcast.gone ? "gone" : podcast.lastFailure.map(describe) ?? podcast.lastError
        code = podcast.gone ? "gone" : podcast.lastFailure?.code
    }

    private enum CodingKeys: String, CodingKey {
        case number, title, author, feedURL, itunesID, episodeCount, newCount, downloadedCount, updated, error, code
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(title, forKey: .title)
        try container.encode(author, forKey: .author)
        try container.encode(feedURL, forKey: .feedURL)
        try container.encode(itunesID, forKey: .itunesID)
        try container.encode(episodeCount, forKey: .episodeCount)
        try container.encode(newCount, forKey: .newCount)
        try container.encode(downloadedCount, forKey: .downloadedCount)
        try container.encode(updated.map { $0.formatted(.iso8601) }, forKey: .updated)
        try container.encode(error, forKey: .error)
        try container.encode(code, forKey: .code)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        number = try container.decode(Int.self, forKey: .number)
        title = try container.decode(String.self, forKey: .title)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        feedURL = try container.decode(String.self, forKey: .feedURL)
        itunesID = try container.decodeIfPresent(Int64.self, forKey: .itunesID)
        episodeCount = try container.decode(Int.self, forKey: .episodeCount)
        newCount = try container.decode(Int.self, forKey: .newCount)
        downloadedCount = try container.decode(Int.self, forKey: .downloadedCount)
        updated = try container.decodeIfPresent(String.self, forKey: .updated).flatMap {
            try? Date($0, strategy: .iso8601)
        }
        error = try container.decodeIfPresent(String.self, forKey: .error)
        code = try container.decodeIfPresent(String.self, forKey: .code)
    }
}

extension Services {
    /// Every subscription, by number, with what is on disk counted as
    /// downloaded; empty, without making a library, when there is none.
    package func subscriptionEntries(describe: (UpdateFailure) -> String = { $0.description })
        async throws(LibraryError)
        -> [SubscriptionEntry]
    {
        try await entries(describe: describe) { _ in true }.map(\.entry)
    }

    /// Subscription `number` as ``subscriptionEntries(describe:)`` gives it, with
    /// its record; only its own folder is counted. Nil when there is none.
    package func subscriptionEntry(_ number: Int64) async throws(LibraryError)
        -> (entry: SubscriptionEntry, podcast: StoredPodcast)?
    {
        try await entries(describe: { $0.description }) { $0.podcast.id == number }.first
    }

    /// The subscriptions `included`, with their files on disk counted.
    private func entries(
        describe: (UpdateFailure) -> String,
        _ included: (PodcastSummary) -> Bool
    ) async throws(LibraryError) -> [(entry: SubscriptionEntry, podcast: StoredPodcast)] {
        guard let library = try self.library.openIfExists() else { return [] }
        let chosen = try await library.podcasts().filter(included)
        let onDisk = chosen.isEmpty ? [:] : await downloads.downloadedOnDisk(chosen.map(\.podcast))
        return chosen.map {
            (SubscriptionEntry($0, downloaded: onDisk[$0.podcast.id ?? -1], describe: describe), $0.podcast)
        }
    }
}
