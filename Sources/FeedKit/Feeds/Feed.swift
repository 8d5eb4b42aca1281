import Foundation

/// A podcast feed as parsed: RSS 2.0 or Atom 1.0, with the iTunes, Podcasting 2.0
/// and Media RSS extensions feedsh uses.
public struct Feed: Sendable, Equatable {
    public var title: String = ""
    public var author: String?
    /// Plain text.
    public var description: String?
    public var link: URL?
    public var artworkURL: URL?
    /// `itunes:new-feed-url`: the publisher moved the feed.
    public var newFeedURL: URL?
    /// RFC 5005 `<atom:link rel="next">`: the next page of a paged feed.
    public var nextPage: URL?
    /// `podcast:guid`.
    public var podcastGUID: String?
    /// `podcast:locked`.
    public var locked: Bool?
    public var funding: [Funding] = []
    /// In the order of the document.
    public var items: [FeedItem] = []
    /// Items skipped, in words (`skipped item 3: it has no audio`).
    public var warnings: [String] = []

    public init() {}
}

/// One episode of a feed.
public struct FeedItem: Sendable, Equatable {
    /// Its identity: the GUID, else the enclosure URL, else title and date.
    public var guid: String
    public var title: String
    /// Plain text: HTML and CDATA turned into paragraphs and lists.
    public var description: String?
    public var published: Date?
    public var duration: Duration?
    public var enclosure: Enclosure
    public var link: URL?
    public var artworkURL: URL?
    /// `podcast:season` / `itunes:season`.
    public var season: Int?
    /// `podcast:episode` / `itunes:episode`.
    public var episode: Int?
    /// `podcast:chapters`.
    public var chaptersURL: URL?
    /// `podcast:transcript`.
    public var transcripts: [Transcript] = []
    /// `podcast:funding` of the item, else of the channel.
    public var funding: [Funding] = []
    /// `podcast:person` names.
    public var persons: [String] = []
    /// The show notes as allow-listed markup (``ShowNotes/markup(_:)``), when
    /// they hold links, lists or emphasis; `description` is their text.
    public var notes: String?

    public init(
        guid: String,
        title: String,
        description: String? = nil,
        published: Date? = nil,
        duration: Duration? = nil,
        enclosure: Enclosure,
        link: URL? = nil,
        artworkURL: URL? = nil,
        season: Int? = nil,
        episode: Int? = nil,
        chaptersURL: URL? = nil,
        transcripts: [Transcript] = [],
        funding: [Funding] = [],
        persons: [String] = [],
        notes: String? = nil
    ) {
        self.guid = guid
        self.title = title
        self.description = description
        self.published = published
        self.duration = duration
        self.enclosure = enclosure
        self.link = link
        self.artworkURL = artworkURL
        self.season = season
        self.episode = episode
        self.chaptersURL = chaptersURL
        self.transcripts = transcripts
        self.funding = funding
        self.persons = persons
        self.notes = notes
    }
}

/// The audio of an episode.
public struct Enclosure: Sendable, Equatable {
    public var url: URL
    public var type: String?
    public var length: Int64?

    public init(url: URL, type: String? = nil, length: Int64? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }

    /// Audio by its type, or by its file extension when the type says nothing.
    public var isAudio: Bool {
        if let type = type?.lowercased(), !type.isEmpty, type != "application/octet-stream" {
            return type.hasPrefix("audio/") || type == "application/ogg" || type == "application/x-mpegurl"
        }
        return ["mp3", "m4a", "aac", "ogg", "oga", "opus", "wav", "flac", "mp4", "m4b"].contains(
            url.pathExtension.lowercased()
        )
    }
}

/// `podcast:transcript`.
public struct Transcript: Sendable, Equatable, Codable {
    public var url: URL
    public var type: String?

    public init(url: URL, type: String?) {
        self.url = url
        self.type = type
    }
}

/// `podcast:funding`.
public struct Funding: Sendable, Equatable, Codable {
    public var url: URL
    public var text: String?

    public init(url: URL, text: String?) {
        self.url = url
        self.text = text
    }
}
