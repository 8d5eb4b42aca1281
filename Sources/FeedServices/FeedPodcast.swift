import Downloads
import FeedKit
import Foundation

/// The IDs downloads are filed under for a podcast known only by its feed: negative
/// keys of its feed URL and of each episode's GUID in it (Apple's IDs are
/// positive), the same whether the feed was opened or subscribed to, so that a file
/// downloaded before `subscribe` is the subscription's.
package enum FeedKeys {
    package static func podcast(feedURL: String) -> Int64 {
        DownloadLayout.feedKey(feedURL)
    }

    package static func episode(feedURL: String, guid: String) -> Int64 {
        DownloadLayout.feedKey(feedURL + "\n" + guid)
    }
}

extension Podcast {
    /// Apple's collection ID, when the podcast came from Apple's directory; nil for
    /// one read from its feed (its ``id`` is a negative ``FeedKeys`` key).
    package var appleID: Int64? { id > 0 ? id : nil }

    /// A feed read without subscribing to it (`open` of a Podcast Index result): its
    /// newest `limit` episodes, newest first, as `episodes` numbers them.
    package init(feed: Feed, url: URL, limit: Int) {
        let feedURL = url.absoluteString
        let podcastID = FeedKeys.podcast(feedURL: feedURL)
        // Newest first; undated items after dated ones, in the document's order.
        let items = feed.items.enumerated().sorted { left, right in
            switch (left.element.published, right.element.published) {
            case (let l?, let r?) where l != r: l > r
            case (_?, nil): true
            case (nil, _?): false
            default: left.offset < right.offset
            }
        }.map(\.element)
        let episodes = items.prefix(max(0, limit)).map { item in
            Episode(
                id: FeedKeys.episode(feedURL: feedURL, guid: item.guid),
                podcastID: podcastID,
                title: item.title,
                releaseDate: item.published,
                duration: item.duration,
                audioURL: item.enclosure.url,
                description: item.description,
                artworkURL: item.artworkURL,
                guid: item.guid,
                declaredLength: item.enclosure.length
            )
        }
        self.init(
            id: podcastID,
            title: feed.title,
            artist: feed.author,
            artworkURL: feed.artworkURL,
            feedURL: url,
            episodeCount: feed.items.count,
            episodes: EpisodeList(Array(episodes))
        )
    }
}
