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
        .object([
            // A feed-only podcast's key is 63 bits: as text, like every download
            // id, it stays exact through jq and JavaScript.
            "id": .string(String(podcast.id)),
            "title": .string(podcast.title),
            "artist": .string(podcast.artist),
            "genres": .array(podcast.genres.map { .string($0) }),
            "episodeCount": podcast.episodeCount.map { .int($0) },
            "artworkURL": .string(podcast.artworkURL?.absoluteString),
            "episodes": episodes(podcast, statuses: statuses, marks: marks),
            "warnings": .array(podcast.warnings.map { .string($0.description) }),
        ])
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
        return (try? JSONValueEncoder().encode(entry)) ?? .null
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
        return (try? JSONValueEncoder().encode(entry)) ?? .null
    }

    /// `{"state": "paused", "bytes": 123, "total": 456}`.
    static func status(_ status: EpisodeStatus) -> JSONValue {
        (try? JSONValueEncoder().encode(status)) ?? .null
    }

    /// An engine state as it was reported (what a download came to), whatever the
    /// disk says now.
    static func state(_ state: DownloadManager.State) -> JSONValue {
        switch state {
        case .cancelled: .object(["state": .string("cancelled")])
        case .completed(let bytes): status(.downloaded(bytes: bytes))
        case .paused(let bytes, let total): status(.paused(bytes: bytes, total: total))
        default: status(EpisodeStatus(engine: state, disk: .absent))
        }
    }

    /// `search --json`.
    static func searchResults(_ results: [PodcastSearchResult]) -> JSONValue {
        .array(
            results.enumerated().map { index, result in
                .object([
                    "number": .int(index + 1), "id": .int(result.id), "title": .string(result.title),
                    "artist": .string(result.artist), "episodeCount": result.episodeCount.map { .int($0) },
                    "genre": .string(result.genre), "feedURL": .string(result.feedURL?.absoluteString),
                    "directory": .string(result.directory.rawValue),
                ])
            }
        )
    }

    static func post(_ post: Post, comments: [Comment]? = nil) -> JSONValue {
        .object([
            "id": .int(post.id), "userId": .int(post.userId), "title": .string(post.title), "body": .string(post.body),
            "comments": comments.map { comments in
                .array(
                    comments.map {
                        .object([
                            "id": .int($0.id), "name": .string($0.name), "email": .string($0.email),
                            "body": .string($0.body),
                        ])
                    }
                )
            },
        ])
    }

    /// A download event: `{"event": "progress", "id": ..., "label": ..., ...}`.
    static func event(_ event: DownloadEvent, label: DownloadLabel) -> JSONValue {
        let (name, details): (String, KeyValuePairs<String, JSONValue?>) =
            switch event {
            case .queued: ("queued", [:])
            case .started(_, let offset): ("started", ["offset": .int(offset)])
            case .progress(_, let progress):
                (
                    "progress",
                    [
                        "bytes": .int(progress.bytes), "total": progress.total.map { .int($0) },
                        "percent": progress.fraction.map { .double(($0 * 1000).rounded() / 10) },
                    ]
                )
            case .paused(_, let bytes, let total): ("paused", ["bytes": .int(bytes), "total": total.map { .int($0) }])
            case .completed(_, let bytes, let file): ("completed", ["bytes": .int(bytes), "path": .string(file.path)])
            case .failed(_, let error):
                ("failed", ["code": .string(error.code.description), "message": .string(error.description)])
            case .cancelled: ("cancelled", [:])
            case .restarted(_, let reason): ("restarted", ["message": .string(reason.description)])
            case .retrying(_, let attempt, let delay, let reason):
                (
                    "retrying",
                    [
                        "attempt": .int(attempt), "delaySeconds": .double(delay.seconds),
                        "message": .string(reason.description),
                    ]
                )
            }
        guard case .object(let rest) = JSONValue.object(details) else { return .null }
        let head: [JSONValue.Member] = [
            .init(key: "event", value: .string(name)), .init(key: "id", value: .string(event.id.rawValue)),
            .init(key: "label", value: .string(label.description)),
        ]
        return .object(head + rest)
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
