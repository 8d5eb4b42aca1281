import Foundation
import PlainText

/// One chapter of an episode, from its `podcast:chapters` JSON (the Podcast Index
/// chapters format, <https://github.com/Podcastindex-org/podcast-namespace/blob/main/chapters/jsonChapters.md>).
public struct Chapter: Sendable, Equatable {
    /// Seconds from the start of the episode.
    public var start: Double
    /// Sanitized; may be empty (a chapter that only changes the image).
    public var title: String
    /// A web page about the chapter.
    public var url: URL?
    /// The chapter's artwork.
    public var image: URL?

    public init(start: Double, title: String, url: URL? = nil, image: URL? = nil) {
        self.start = start
        self.title = title
        self.url = url
        self.image = image
    }
}

/// An episode's chapters JSON: `{"version": "1.2.0", "chapters": [{"startTime",
/// "title", "img", "url", "toc"}]}`.
///
/// Chapters are returned in time order. Those marked `"toc": false` are silent
/// markers the format keeps out of a table of contents, and so are they here, as
/// are starts that are negative or past ``latestStart``.
/// A chapter without a numeric `startTime` makes the document malformed (its JSON
/// path is named); an `img` or `url` that is no http(s) URL is dropped.
public struct ChapterList: Decodable, Sendable, Equatable {
    public let chapters: [Chapter]

    private enum CodingKeys: String, CodingKey { case chapters }

    private struct Entry: Decodable {
        let startTime: Double
        let title: String?
        let img: String?
        let url: String?
        let toc: Bool?
    }

    public init(chapters: [Chapter]) {
        self.chapters = chapters
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let entries = try container.decode([Entry].self, forKey: .chapters)
        chapters =
            entries
            .filter { $0.toc != false && (0...Self.latestStart).contains($0.startTime) }
            .map { entry in
                Chapter(
                    start: entry.startTime,
                    title: SafeText.line(entry.title ?? ""),
                    url: Self.web(entry.url),
                    image: Self.web(entry.img)
                )
            }
            .sorted { $0.start < $1.start }
    }

    /// Starts past a week in are dropped: no episode lasts that long, and a
    /// server's `1e300` must not reach arithmetic that traps.
    public static let latestStart = 7 * 86_400.0

    private static func web(_ text: String?) -> URL? {
        guard let text, let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else { return nil }
        return url
    }
}

extension ChapterList {
    /// Decodes a chapters document read from `url`; a failure names the JSON path.
    public static func decode(_ data: Data, from url: URL) throws(FeedError) -> ChapterList {
        do {
            return try JSONDecoder().decode(ChapterList.self, from: data)
        } catch {
            throw FeedError(decoding: error, url: url, byteCount: data.count)
        }
    }
}
