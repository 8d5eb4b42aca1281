import FeedServices
import Foundation
import PlainText

/// What the web page asks of the library: the front end asks, the library's
/// side (``LibraryCatalog``, over the core's services) answers with the core's
/// values, the same `--json` and mcp give.
package protocol WebLibrary: Sendable {
    func subscriptions() async throws -> SubscriptionList
    /// Nil when there is no subscription `number`.
    func podcast(_ number: Int64) async throws -> WebPodcast?
    func episode(_ address: ListedAddress) async throws -> WebEpisode
    func transcript(_ address: ListedAddress) async throws -> TranscriptPage
    func chapters(_ address: ListedAddress) async throws -> WebChapters
    func find(_ words: String) async throws -> HitList
    func queue() async throws -> QueueList
    func stats(by grouping: String) async throws -> StatsEntry
    func bookmarks() async throws -> BookmarkList
    /// Saves the place, as the shell's player does: `startedAt` where this
    /// stretch of listening began, `ended` when it reached the end; a stretch
    /// is kept in the listening history (`stats`), played at `speed` over
    /// `wall` seconds.
    func savePlace(
        _ address: ListedAddress,
        seconds: Double,
        startedAt: Double?,
        ended: Bool,
        speed: Double?,
        wall: Double?
    ) async throws -> PlaceSaved
    func addBookmark(_ address: ListedAddress, at seconds: Double, note: String?) async throws -> BookmarkEntry
    /// Starts its download as `get` does.
    func download(_ address: ListedAddress) async throws -> DownloadStart
    /// A cached copy of subscription `number`'s artwork on disk, and its type.
    func artwork(_ number: Int64) async -> (file: URL, type: String)?
}

/// A question the page asked that has no answer: said as a 404 or 400 with
/// the reason in words.
package struct WebRefusal: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable { case notFound, badRequest, conflict, forbidden }
    package let kind: Kind
    package let description: String

    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = SafeText.line(description)
    }
}

/// `/api/podcasts/P`: the subscription and its episodes, each as `episodes
/// --json` gives them.
package struct WebPodcast: Encodable, Sendable {
    package var podcast: SubscriptionEntry
    package var episodes: [EpisodeEntry]
    /// Its speed: the podcast's own, else the `speed` setting.
    package var speed: Double
}

/// `/api/episodes/P:E`: the episode as `show --json` gives it, with what the
/// page needs beside it: the notes through the allow-list as markup, where
/// its file is served, its speed and its bookmarks.
package struct WebEpisode: Encodable, Sendable {
    package var episode: EpisodeDetail
    /// The show notes as markup (``ShowNotes``); empty when there are none.
    package var notesHTML: String
    /// `/media/…` when the file is downloaded; nil otherwise.
    @Nullable package var media: String?
    package var podcastNumber: Int
    package var speed: Double
    package var bookmarks: [BookmarkEntry]
}

/// `/api/episodes/P:E/chapters`.
package struct WebChapters: Encodable, Sendable {
    package var ref: String
    package var chapters: [ChapterEntry]
    /// Why the feed's chapters could not be read, when they could not.
    @Nullable package var problem: String?
}
