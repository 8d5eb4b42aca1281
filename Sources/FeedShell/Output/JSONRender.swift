import Downloads
import FeedKit
import FeedServices
import Foundation
import Library

/// The `--json` form of each model. Strings are given as the API sent them (JSON
/// escapes control characters, so nothing reaches a terminal raw); docs/reference.md lists
/// these keys.
enum JSONRender {
    static func podcast(
        _ podcast: Podcast,
        statuses: [Int64: EpisodeStatus],
        marks: EpisodeMarksLookup = [:]
    ) -> JSONValue {
        JSONValue(
            encoding: PodcastJSON(
                // A feed-only podcast's key is 63 bits: as text, like every
                // download id, it stays exact through jq and JavaScript; it
                // names the podcast's download folder (`feed-{hex}`).
                id: DownloadLayout.name(podcast.id),
                title: podcast.title,
                artist: podcast.artist,
                genres: podcast.genres,
                episodeCount: podcast.episodeCount,
                artworkURL: podcast.artworkURL?.absoluteString,
                episodes: episodes(podcast, statuses: statuses, marks: marks),
                warnings: podcast.warnings.map(\.description)
            )
        )
    }

    /// `podcast --json` and `lookup --json`: a podcast as its feed or directory
    /// gives it, with its episodes.
    private struct PodcastJSON: Encodable {
        var id: String
        var title: String
        @Nullable var artist: String?
        var genres: [String]
        /// Left out when the directory does not say.
        var episodeCount: Int?
        @Nullable var artworkURL: String?
        var episodes: JSONValue
        var warnings: [String]
    }

    static func episodes(
        _ podcast: Podcast,
        numbers: [Int]? = nil,
        statuses: [Int64: EpisodeStatus],
        marks: EpisodeMarksLookup = [:],
        subscription: Int? = nil
    ) -> JSONValue {
        .array(
            (numbers ?? podcast.episodes.indices.map { $0 + 1 }).map { number in
                let episode = podcast.episodes[number - 1]
                return self.episode(
                    episode,
                    number: number,
                    status: statuses[episode.id],
                    full: false,
                    marks: marks[episode.id],
                    podcast: podcast.title,
                    ref: subscription.map { "\($0):\(number)" }
                )
            }
        )
    }

    static func episode(
        _ episode: Episode,
        number: Int,
        status: EpisodeStatus?,
        full: Bool,
        path: String? = nil,
        marks: EpisodeMarks? = nil,
        podcast: String? = nil,
        ref: String? = nil
    ) -> JSONValue {
        let entry = EpisodeEntry(
            episode,
            number: .place(number),
            status: status ?? .none,
            detail: full ? (episode.description, path) : nil,
            library: marks.map { EpisodeEntry.InLibrary(ref: ref, marks: $0, podcast: podcast) }
        )
        return JSONValue(encoding: entry)
    }

    /// A library episode outside the loaded podcast (`new`), numbered `number`
    /// (`n1`).
    static func libraryEpisode(_ episode: StoredEpisode, podcast: StoredPodcast, number: String) -> JSONValue {
        guard let shown = episode.episode(in: podcast) else { return .null }
        let entry = EpisodeEntry(
            shown,
            number: .name(number),
            status: .none,
            library: .init(ref: nil, marks: EpisodeMarks(episode), podcast: podcast.title)
        )
        return JSONValue(encoding: entry)
    }

    /// `{"state": "paused", "bytes": 123, "total": 456}`.
    static func status(_ status: EpisodeStatus) -> JSONValue {
        JSONValue(encoding: status)
    }

    /// An engine state as it was reported (what a download came to), whatever the
    /// disk says now.
    static func state(_ state: DownloadManager.State) -> JSONValue {
        switch state {
        case .cancelled: JSONValue(encoding: ["state": "cancelled"])
        case .completed(let bytes): status(.downloaded(bytes: bytes))
        case .paused(let bytes, let total): status(.paused(bytes: bytes, total: total))
        default: status(EpisodeStatus(engine: state, disk: .absent))
        }
    }

    /// `search --json`.
    static func searchResults(_ results: [PodcastSearchResult]) -> JSONValue {
        JSONValue(
            encoding: results.enumerated().map { index, result in
                SearchResultJSON(
                    number: index + 1,
                    id: result.id,
                    title: result.title,
                    artist: result.artist,
                    episodeCount: result.episodeCount,
                    genre: result.genre,
                    feedURL: result.feedURL?.absoluteString,
                    directory: result.directory.rawValue
                )
            }
        )
    }

    /// One podcast a directory found.
    private struct SearchResultJSON: Encodable {
        var number: Int
        var id: Int64
        var title: String
        @Nullable var artist: String?
        /// Left out when the directory does not say.
        var episodeCount: Int?
        @Nullable var genre: String?
        @Nullable var feedURL: String?
        var directory: String
    }

    static func post(_ post: Post, comments: [Comment]? = nil) -> JSONValue {
        JSONValue(
            encoding: PostJSON(
                id: post.id,
                userId: post.userId,
                title: post.title,
                body: post.body,
                comments: comments?.map { CommentJSON(id: $0.id, name: $0.name, email: $0.email, body: $0.body) }
            )
        )
    }

    /// A post, with its comments when they were asked for.
    private struct PostJSON: Encodable {
        var id: Int
        var userId: Int
        var title: String
        var body: String
        var comments: [CommentJSON]?
    }

    private struct CommentJSON: Encodable {
        var id: Int
        var name: String
        var email: String
        var body: String
    }

    /// A download event: `{"event": "progress", "id": ..., "label": ..., ...}`.
    static func event(_ event: DownloadEvent, label: DownloadLabel) -> JSONValue {
        var line = EventJSON(event: "", id: event.id.rawValue, label: label.description)
        switch event {
        case .queued: line.event = "queued"
        case .started(_, let offset):
            line.event = "started"
            line.offset = offset
        case .progress(_, let progress):
            line.event = "progress"
            line.bytes = progress.bytes
            line.total = progress.total
            line.percent = progress.fraction.map { ($0 * 1000).rounded() / 10 }
        case .paused(_, let bytes, let total):
            line.event = "paused"
            line.bytes = bytes
            line.total = total
        case .completed(_, let bytes, let file):
            line.event = "completed"
            line.bytes = bytes
            line.path = file.path
        case .failed(_, let error):
            line.event = "failed"
            line.code = error.code.description
            line.message = error.description
        case .cancelled: line.event = "cancelled"
        case .restarted(_, let reason):
            line.event = "restarted"
            line.message = reason.description
        case .retrying(_, let attempt, let delay, let reason):
            line.event = "retrying"
            line.attempt = attempt
            line.delaySeconds = delay.seconds
            line.message = reason.description
        }
        return JSONValue(encoding: line)
    }

    /// One line of a download's events: what each event says, the rest left out.
    private struct EventJSON: Encodable {
        var event: String
        var id: String
        var label: String
        var offset: Int64?
        var attempt: Int?
        var delaySeconds: Double?
        var bytes: Int64?
        var total: Int64?
        var percent: Double?
        var path: String?
        var code: String?
        var message: String?
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
