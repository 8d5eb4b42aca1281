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
        marks: EpisodeMarksLookup = [:]
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
                    podcast: podcast.title
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
        podcast: String? = nil
    ) -> JSONValue {
        let base: JSONValue = .object([
            "number": .int(number),
            // The same text as the id of its download (`downloads`, `get`).
            "id": .string(String(episode.id)),
            "title": .string(episode.title),
            "date": .date(episode.releaseDate),
            "seconds": episode.duration.map { .int($0.components.seconds) } ?? .null,
            "audioURL": .string(episode.audioURL.absoluteString),
            "status": self.status(status ?? EpisodeStatus.none),
            "description": full ? .string(episode.description) : nil,
            "path": full ? .string(path) : nil,
        ])
        guard let marks, case .object(let members) = base else { return base }
        let library: JSONValue = .object([
            "guid": .string(marks.guid), "podcast": .string(podcast), "new": .bool(marks.isNew),
            "played": .bool(marks.played), "position": .double(marks.position),
            "season": marks.season.map { .int($0) } ?? .null, "episode": marks.episode.map { .int($0) } ?? .null,
            "chapters": .string(marks.chaptersURL),
            "transcripts": .array(
                marks.transcripts.map { .object(["url": .string($0.url.absoluteString), "type": .string($0.type)]) }
            ),
            "funding": .array(
                marks.funding.map { .object(["url": .string($0.url.absoluteString), "text": .string($0.text)]) }
            ),
        ])
        guard case .object(let extra) = library else { return base }
        return .object(members + extra)
    }

    /// A library episode outside the loaded podcast (`new`).
    static func libraryEpisode(_ episode: StoredEpisode, podcast: StoredPodcast, number: String) -> JSONValue {
        guard let shown = episode.episode(in: podcast) else { return .null }
        guard
            case .object(let members) = self.episode(
                shown,
                number: 0,
                status: nil,
                full: false,
                marks: EpisodeMarks(episode),
                podcast: podcast.title
            )
        else { return .null }
        return .object(members.map { $0.key == "number" ? .init(key: "number", value: .string(number)) : $0 })
    }

    /// `{"state": "paused", "bytes": 123, "total": 456}`.
    static func status(_ status: EpisodeStatus) -> JSONValue {
        switch status {
        case .none: .object(["state": .string("none")])
        case .queued: .object(["state": .string("queued")])
        case .downloading(let progress):
            .object([
                "state": .string("downloading"), "bytes": progress.map { .int($0.bytes) },
                "total": progress?.total.map { .int($0) },
            ])
        case .paused(let bytes, let total):
            .object(["state": .string("paused"), "bytes": .int(bytes), "total": total.map { .int($0) }])
        case .downloaded(let bytes): .object(["state": .string("downloaded"), "bytes": .int(bytes)])
        case .failed(let message): .object(["state": .string("failed"), "message": .string(message)])
        }
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
