import FeedKit
import Foundation
import Library
import Synchronization

/// A subscription's episodes and their marks, read from the library a page at a
/// time: `podcast 1` of 200 000 episodes holds their row ids (1.6 MB) and a few
/// pages, not the podcast. The list is the one listed when it was made
/// (``Library/episodeIDs(of:)``); `update` makes a new one.
package final class LibraryEpisodes: EpisodeSource {
    package static let pageSize = 256
    /// Pages kept, most recently read last: enough for a screen of `episodes` and
    /// for looking up the marks of what a command just read.
    package static let pagesKept = 8

    package let library: Library
    package let podcast: StoredPodcast
    /// The episodes' row ids, newest first.
    private let ids: [Int64]
    package var count: Int { ids.count }

    private struct Page: Sendable {
        let number: Int
        let entries: [Entry]
    }

    private struct Entry: Sendable {
        let episode: Episode
        let marks: EpisodeMarks
    }

    /// Why an episode could not be read.
    private struct Unread: Error, CustomStringConvertible {
        let description: String
    }

    private let pages = Mutex<[Page]>([])

    package init(library: Library, podcast: StoredPodcast, ids: [Int64]) {
        self.library = library
        self.podcast = podcast
        self.ids = ids
    }

    package func episode(at position: Int) -> Episode {
        switch entry(at: position) {
        case .success(let entry): entry.episode
        case .failure(let error):
            // The list cannot fail its reader; the episode says what went wrong.
            Episode(
                id: -1,
                podcastID: podcast.downloadKey,
                title: "(not read from the library: \(error))",
                audioURL: URL(fileURLWithPath: "/dev/null")
            )
        }
    }

    /// The marks of the episode at `position`.
    package func marks(at position: Int) -> EpisodeMarks? {
        try? entry(at: position).get().marks
    }

    /// The marks of the episode whose ``FeedKit/Episode/id`` is `id`: from the
    /// pages kept (a command looks up what it just read), else by reading the
    /// list through.
    package func marks(of id: Int64) -> EpisodeMarks? {
        let kept = pages.withLock { pages in
            pages.lazy.flatMap(\.entries).first { $0.episode.id == id }
        }
        if let kept { return kept.marks }
        var number = 0
        while number * Self.pageSize < count {
            guard let page = try? load(number) else { return nil }
            if let entry = page.entries.first(where: { $0.episode.id == id }) { return entry.marks }
            number += 1
        }
        return nil
    }

    private func entry(at position: Int) -> Result<Entry, Unread> {
        let number = position / Self.pageSize
        let index = position % Self.pageSize
        let kept = pages.withLock { pages -> Page? in
            guard let at = pages.firstIndex(where: { $0.number == number }) else { return nil }
            let page = pages.remove(at: at)
            pages.append(page)
            return page
        }
        let page: Page
        if let kept {
            page = kept
        } else {
            do {
                page = try load(number)
            } catch {
                return .failure(error)
            }
            pages.withLock { pages in
                pages.append(page)
                if pages.count > Self.pagesKept { pages.removeFirst(pages.count - Self.pagesKept) }
            }
        }
        guard index < page.entries.count else {
            return .failure(Unread(description: "episode \(position + 1) of \(count) is no longer in the library"))
        }
        return .success(page.entries[index])
    }

    private func load(_ number: Int) throws(Unread) -> Page {
        let start = number * Self.pageSize
        let wanted = Array(ids[start..<min(ids.count, start + Self.pageSize)])
        let records: [StoredEpisode]
        do {
            records = try library.episodes(withIDs: wanted)
        } catch {
            throw Unread(description: error.description)
        }
        // One deleted since (unsubscribed meanwhile) would shift the page.
        guard records.count == wanted.count else {
            throw Unread(description: "the podcast's episodes were removed from the library since it was loaded")
        }
        return Page(
            number: number,
            entries: records.map { Entry(episode: $0.listedEpisode(in: podcast), marks: EpisodeMarks($0)) }
        )
    }
}

/// The library's marks of a loaded subscription's episodes, by
/// ``FeedKit/Episode/id``.
package struct EpisodeMarksLookup: Sendable, ExpressibleByDictionaryLiteral {
    private let known: [Int64: EpisodeMarks]
    private let source: LibraryEpisodes?

    package init(dictionaryLiteral elements: (Int64, EpisodeMarks)...) {
        known = Dictionary(elements) { first, _ in first }
        source = nil
    }

    package init(_ source: LibraryEpisodes) {
        known = [:]
        self.source = source
    }

    package subscript(id: Int64) -> EpisodeMarks? {
        known[id] ?? source?.marks(of: id)
    }

    /// The marks of the episode listed at `position` (from 0), when it is the one
    /// whose id is `id`: a page lookup, where ``subscript(_:)`` reads the pages
    /// through (a selection of 5,000 episodes made that 5,000 scans).
    package func marks(at position: Int, id: Int64) -> EpisodeMarks? {
        if let marks = known[id] { return marks }
        guard let source else { return nil }
        if let marks = source.marks(at: position), source.episode(at: position).id == id { return marks }
        return source.marks(of: id)
    }
}

extension StoredEpisode {
    /// As a list of a podcast's episodes shows it: an address the library holds that
    /// is no URL (it always was one when stored) plays and downloads as nothing.
    package func listedEpisode(in podcast: StoredPodcast) -> Episode {
        episode(in: podcast)
            ?? Episode(
                id: downloadKey(in: podcast),
                podcastID: podcast.downloadKey,
                title: title,
                releaseDate: published,
                audioURL: URL(fileURLWithPath: "/dev/null"),
                guid: guid
            )
    }
}
