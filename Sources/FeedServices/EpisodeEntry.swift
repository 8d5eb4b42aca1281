import Downloads
import FeedKit
import Foundation
import HTTPSupport
import Library
import PlainText
import WebBasics

/// One episode as every front end gives it: `episodes --json`, `show --json`,
/// `new --json`, and mcp's `episodes`, `episode` and `new` encode this value, with
/// its keys in this order: `number`, `id`, `title`, `date`, `seconds`,
/// `audioURL`, `status`; for `show`, `description` and `path`; for a library
/// episode, `ref`, `guid`, `podcast`, `new`, `played`, `position`, `season`,
/// `episode`, `chapters`, `transcripts`, `funding`.
package struct EpisodeEntry: Encodable, Sendable {
    /// Its number in the listing that gives it: a place (`3`) or a name (`n1`).
    package enum Number: Sendable, Equatable, Encodable {
        case place(Int)
        case name(String)

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .place(let number): try container.encode(number)
            case .name(let name): try container.encode(name)
            }
        }
    }

    /// What the library knows of it, beside what its feed says.
    package struct InLibrary: Sendable {
        /// `P:E`, its address from any front end.
        package var ref: String?
        package var marks: EpisodeMarks
        package var podcast: String?

        package init(ref: String?, marks: EpisodeMarks, podcast: String?) {
            self.ref = ref
            self.marks = marks
            self.podcast = podcast
        }
    }

    package var number: Number
    /// The id its download has (`downloads`, `get`), as text: 63 bits stay exact
    /// through jq and JavaScript. It names the downloaded file (`feed-{hex}`
    /// for an episode known only from its feed).
    package var id: String
    package var title: String
    package var date: Date?
    package var seconds: Int64?
    package var audioURL: String
    package var status: EpisodeStatus
    /// `show`: the show notes and the downloaded file's path.
    package var detail: (description: String?, path: String?)?
    package var library: InLibrary?

    package init(
        _ episode: Episode,
        number: Number,
        status: EpisodeStatus,
        detail: (description: String?, path: String?)? = nil,
        library: InLibrary? = nil
    ) {
        self.number = number
        id = DownloadID(episode: episode.id).rawValue
        title = SafeText.line(episode.title)
        date = episode.releaseDate
        seconds = episode.duration.map(\.components.seconds)
        audioURL = episode.audioURL.redacted
        self.status = status
        self.detail = detail.map { ($0.description.map(SafeText.block), $0.path) }
        self.library = library
    }

    private enum CodingKeys: String, CodingKey {
        case number, id, title, date, seconds, audioURL, status, description, path
        case ref, guid, podcast, new, played, position, season, episode, chapters, transcripts, funding
    }

    /// `{"url", "type"}` of a transcript, `{"url", "text"}` of a funding link.
    private struct Link: Encodable {
        let url: String
        let label: String?
        let key: CodingKeys

        enum CodingKeys: String, CodingKey { case url, type, text }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(label, forKey: key)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(date.map { $0.formatted(.iso8601) }, forKey: .date)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(audioURL, forKey: .audioURL)
        try container.encode(status, forKey: .status)
        if let detail {
            try container.encode(detail.description, forKey: .description)
            try container.encode(detail.path, forKey: .path)
        }
        guard let library else { return }
        let marks = library.marks
        try container.encode(library.ref, forKey: .ref)
        try container.encode(marks.guid, forKey: .guid)
        try container.encode(library.podcast.map(SafeText.line), forKey: .podcast)
        try container.encode(marks.isNew, forKey: .new)
        try container.encode(marks.played, forKey: .played)
        try container.encode(marks.position, forKey: .position)
        try container.encode(marks.season, forKey: .season)
        try container.encode(marks.episode, forKey: .episode)
        try container.encode(marks.chaptersURL.map(URL.redacted), forKey: .chapters)
        try container.encode(
            marks.transcripts.map { Link(url: $0.url.redacted, label: $0.type, key: .type) },
            forKey: .transcripts
        )
        try container.encode(
            marks.funding.map { Link(url: $0.url.redacted, label: $0.text.map(SafeText.line), key: .text) },
            forKey: .funding
        )
    }
}

extension EpisodeStatus: Encodable {
    /// `{"state": "paused", "bytes": 123, "total": 456}`: the counts present when
    /// known, a failure's `message`.
    package func encode(to encoder: any Encoder) throws {
        enum Keys: String, CodingKey { case state, bytes, total, message }
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .none: try container.encode("none", forKey: .state)
        case .queued: try container.encode("queued", forKey: .state)
        case .downloading(let progress):
            try container.encode("downloading", forKey: .state)
            try container.encodeIfPresent(progress?.bytes, forKey: .bytes)
            try container.encodeIfPresent(progress?.total, forKey: .total)
        case .paused(let bytes, let total):
            try container.encode("paused", forKey: .state)
            try container.encode(bytes, forKey: .bytes)
            try container.encodeIfPresent(total, forKey: .total)
        case .downloaded(let bytes):
            try container.encode("downloaded", forKey: .state)
            try container.encode(bytes, forKey: .bytes)
        case .failed(let message):
            try container.encode("failed", forKey: .state)
            try container.encode(message, forKey: .message)
        }
    }
}

extension DownloadsService {
    /// A library episode as every front end gives it (see ``EpisodeEntry``),
    /// numbered `number`, with its download's status and, for `show` (a
    /// `description`, even nil, given), its notes and where its file goes. Nil when its enclosure URL is unusable.
    package func entry(
        of stored: StoredEpisode,
        in podcast: StoredPodcast,
        number: EpisodeEntry.Number,
        ref: String?,
        description: String?? = nil
    ) async -> EpisodeEntry? {
        guard let episode = stored.episode(in: podcast) else { return nil }
        let file = layout.file(podcastID: podcast.downloadKey, episodeID: episode.id, extension: episode.fileExtension)
        let status = EpisodeStatus(
            engine: await board.state(of: DownloadID(episode: episode.id)),
            disk: layout.status(of: file)
        )
        // `show` says where the file goes, downloaded or not.
        let detail: (description: String?, path: String?)? = description.map { ($0, file.final.path) }
        return EpisodeEntry(
            episode,
            number: number,
            status: status,
            detail: detail,
            library: .init(ref: ref, marks: EpisodeMarks(stored), podcast: podcast.title)
        )
    }
}
