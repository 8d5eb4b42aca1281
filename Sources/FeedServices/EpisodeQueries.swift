import FeedKit
import Foundation
import Library
import PlainText
import WebBasics

/// Why a question about `P:E` has no answer, in words a person reads.
package enum AddressProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case noLibrary
    case noSubscription(Int64)
    case noEpisodes(Int64)
    case outOfRange(ListedAddress, count: Int)

    package var description: String {
        switch self {
        case .noLibrary: "no library yet: subscribe to a podcast first"
        case .noSubscription(let podcast): "there is no subscription \(podcast)"
        case .noEpisodes(let podcast): "subscription \(podcast) has no episodes"
        case .outOfRange(let address, let count):
            "subscription \(address.podcast) has episodes 1-\(count), not \(address.number)"
        }
    }
}

/// A bookmark as every front end gives it: `bookmarks --json` and the web
/// page's `/api/bookmarks` encode this value.
package struct BookmarkEntry: DescribedValue, Sendable, Equatable {
    /// `b3`.
    package var number: String
    /// `P:E` while the episode is in the library.
    @Nullable package var ref: String?
    package var podcast: String
    package var title: String
    /// Seconds into the episode.
    package var at: Double
    @Nullable package var note: String?
    /// The transcript's words at that moment, when a transcript is kept.
    @Nullable package var words: String?
    package var guid: String
    package var feedURL: String

    package init(_ bookmark: Bookmark, number: Int, ref: String?, words: String?) {
        self.number = "b\(number)"
        self.ref = ref
        podcast = SafeText.line(bookmark.podcastTitle)
        title = SafeText.line(bookmark.episodeTitle)
        at = bookmark.at
        note = bookmark.note.map(SafeText.line)
        self.words = words.map(SafeText.line)
        guid = SafeText.line(bookmark.guid)
        feedURL = URL.redacted(bookmark.feedURL)
    }

    package static var examples: [BookmarkEntry] {
        let identity = EpisodeIdentity(
            episodeID: 7,
            podcastTitle: "Swift Weekly",
            episodeTitle: "Actors",
            feedURL: "https://example.com/feed.xml",
            guid: "urn:swift-weekly:40"
        )
        let bookmark = Bookmark(episode: identity, at: 754, note: "the part on isolation", created: Date())
        return [
            BookmarkEntry(bookmark, number: 1, ref: "2:1", words: "isolated actors"),
            BookmarkEntry(
                Bookmark(episode: identity, at: 10, note: nil, created: Date()),
                number: 2,
                ref: nil,
                words: nil
            ),
        ]
    }
}

/// The bookmarks (the web page's `/api/bookmarks`).
package struct BookmarkList: DescribedValue, Sendable, Equatable {
    package var bookmarks: [BookmarkEntry]

    package init(_ bookmarks: [BookmarkEntry]) { self.bookmarks = bookmarks }

    package static var examples: [BookmarkList] { [BookmarkList(BookmarkEntry.examples)] }
}

/// Where an episode's place stands after a front end saved it.
package struct PlaceSaved: DescribedValue, Sendable, Equatable {
    package var ref: String
    /// Seconds in.
    package var position: Double
    package var played: Bool

    package init(ref: String, position: Double, played: Bool) {
        self.ref = ref
        self.position = position
        self.played = played
    }

    package static var examples: [PlaceSaved] { [PlaceSaved(ref: "2:1", position: 754.5, played: false)] }
}

extension Services {
    /// `P:E` in the library, read once; the problem in words when it names nothing.
    package func resolve(_ address: ListedAddress) async throws -> ResolvedLibraryEpisode {
        guard let library = try self.library.openIfExists() else { throw AddressProblem.noLibrary }
        switch try await library.episode(listed: address.number, of: address.podcast) {
        case .noSubscription: throw AddressProblem.noSubscription(address.podcast)
        case .outOfRange(0): throw AddressProblem.noEpisodes(address.podcast)
        case .outOfRange(let count): throw AddressProblem.outOfRange(address, count: count)
        case .found(let resolved): return resolved
        }
    }

    /// One episode in full, as `show --json` and mcp's `episode` give it; nil
    /// when its audio address cannot be used.
    package func detail(of resolved: ResolvedLibraryEpisode) async throws -> EpisodeDetail? {
        guard let library = try self.library.openIfExists() else { throw AddressProblem.noLibrary }
        let notes = try await library.summary(of: resolved.episodeID)
        let transcript = try await library.transcript(of: resolved.episodeID)
        guard
            let entry = await downloads.entry(
                of: resolved.stored,
                in: resolved.podcast,
                number: .place(resolved.episodeNumber),
                ref: resolved.ref,
                description: .some(notes)
            )
        else { return nil }
        return EpisodeDetail(entry, transcriptKept: transcript != nil)
    }

    /// The bookmarks, `b1` first, each with its `P:E` and the transcript's words
    /// at its moment; with `episodeID`, only that episode's (numbered as in the
    /// whole list).
    package func bookmarkEntries(of episodeID: Int64? = nil) async throws(LibraryError) -> [BookmarkEntry] {
        guard let library = try self.library.openIfExists() else { return [] }
        let marks = try await library.bookmarks()
        let resolved = try await library.resolve(marks.compactMap(\.episodeRef))
        let refs = Dictionary(resolved.map { ($0.episodeRef, $0.ref) }) { first, _ in first }
        var entries: [BookmarkEntry] = []
        for (index, mark) in marks.enumerated() where episodeID == nil || mark.episodeID == episodeID {
            var words: String?
            if let id = mark.episodeID { words = try? await library.transcriptWords(ofEpisode: id, at: mark.at) }
            entries.append(
                BookmarkEntry(mark, number: index + 1, ref: mark.episodeRef.flatMap { refs[$0] }, words: words)
            )
        }
        return entries
    }
}

extension ListeningService {
    /// Saves where listening to an episode stands, as the shell's player does
    /// every few seconds and when it stops: with `startedAt` (where this stretch
    /// of listening began) the stretch ended there, and sync carries a `play`
    /// action for it; `finished` marks the episode played (and takes it out of
    /// the queue). Every front end saves a place through this.
    package func savePlace(
        of episodeID: Int64,
        seconds: Double,
        startedAt: Double? = nil,
        finished: Bool = false
    ) async throws(LibraryError) {
        let library = try self.library.open()
        try await library.savePosition(episodeID, seconds: seconds, startedAt: startedAt)
        if finished { try await library.mark([episodeID], .played) }
    }

    /// The podcast's own speed (`set podcast P speed X`), else the `speed` setting.
    package func speed(of podcast: StoredPodcast?) async -> Double {
        if let speed = podcast?.speed { return speed }
        return await library.settings().speed
    }
}

/// Words `find` cannot read, said as the problem with them.
package struct FindProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
}

/// One chapter, as `chapters --json` and the web page give it.
package struct ChapterEntry: Codable, Sendable, Equatable {
    /// From 1.
    package var number: Int
    /// Seconds in.
    package var start: Double
    @Nullable package var title: String?
    @Nullable package var url: String?

    package init(number: Int, _ chapter: Chapter) {
        self.number = number
        start = chapter.start
        title = SafeText.line(chapter.title)
        url = chapter.url.map { URL.redacted($0.absoluteString) }
    }
}

extension Services {
    /// `find`'s words (`"a phrase"`, `pre*`, `OR`, `NOT`) over every show note
    /// and kept transcript, best first; none without a library.
    package func find(_ words: String, limit: Int) async throws -> [FindHitEntry] {
        let query: SearchQuery
        do {
            query = try SearchQuery(Tokenizer.statements(words).first ?? [words])
        } catch let error as SearchQueryError {
            throw FindProblem(description: QueryWords.problem(error))
        } catch {
            throw FindProblem(description: "cannot be read as words")
        }
        guard let library = try self.library.openIfExists() else { return [] }
        return try await library.search(query, limit: limit).map(FindHitEntry.init)
    }
}

extension DownloadsService {
    /// Starts the download of a library episode as `get` does (mcp's `download`,
    /// the web page's Download): where it stands after, or nil when the episode
    /// has no usable audio address.
    package func start(_ episode: EpisodeRef) async throws(LibraryError) -> DownloadStart.State? {
        guard let target = try await targets(of: [episode]).first else { return nil }
        if FileManager.default.fileExists(atPath: target.request.file.final.path) { return .completed }
        await applySettings()
        return if case .queued? = await start([target.request]).first { .queued } else { .downloading }
    }
}
