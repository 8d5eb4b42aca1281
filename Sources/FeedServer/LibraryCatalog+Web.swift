import Downloads
import FeedKit
import FeedServices
import Foundation
import Library
import PlainText

extension LibraryCatalog: WebLibrary {
    package func subscriptions() async throws -> SubscriptionList {
        SubscriptionList(try await services.subscriptionEntries())
    }

    package func podcast(_ number: Int64) async throws -> WebPodcast? {
        guard let library = try services.library.openIfExists(),
            let (entry, podcast) = try await services.subscriptionEntry(number)
        else { return nil }
        var episodes: [EpisodeEntry] = []
        for (index, stored) in try await library.episodes(of: number).enumerated() {
            let entry = await services.downloads.entry(
                of: stored,
                in: podcast,
                number: .place(index + 1),
                ref: "\(number):\(index + 1)"
            )
            if let entry { episodes.append(entry) }
        }
        return WebPodcast(
            podcast: entry,
            episodes: episodes,
            speed: await services.listening.speed(of: podcast)
        )
    }

    package func episode(_ address: ListedAddress) async throws -> WebEpisode {
        let resolved = try await resolve(address)
        guard let detail = try await services.detail(of: resolved) else {
            throw WebRefusal(.notFound, "\(address) has no usable audio address")
        }
        // The notes' markup the library kept (links, lists), else their text.
        let notes =
            resolved.stored.notes.map(ShowNotes.html) ?? detail.entry.detail?.description.map(ShowNotes.plain) ?? ""
        return WebEpisode(
            episode: detail,
            notesHTML: notes,
            media: served(resolved.stored, of: resolved.podcast).map { "/media/" + $0.mediaPath },
            podcastNumber: Int(address.podcast),
            speed: await services.listening.speed(of: resolved.podcast),
            bookmarks: try await services.bookmarkEntries(of: resolved.episodeID)
        )
    }

    package func transcript(_ address: ListedAddress) async throws -> TranscriptPage {
        let resolved = try await resolve(address)
        let stored = resolved.stored
        guard !stored.transcriptList.isEmpty else {
            throw WebRefusal(.notFound, "\(address) has no transcript: its feed offers none")
        }
        let kept = try await services.listening.transcript(
            of: resolved.episodeID,
            offered: stored.transcriptList,
            title: stored.title
        )
        let paragraphs = kept.paragraphs.map(TranscriptPage.Paragraph.init)
        return TranscriptPage(ref: resolved.ref, paragraphs: paragraphs, total: paragraphs.count, next: nil)
    }

    package func chapters(_ address: ListedAddress) async throws -> WebChapters {
        let resolved = try await resolve(address)
        guard let link = resolved.stored.chaptersURL, let url = URL(string: link) else {
            return WebChapters(ref: resolved.ref, chapters: [], problem: nil)
        }
        let authorization = await services.library.authorization(for: url, ofEpisode: resolved.episodeID)
        do throws(FeedError) {
            let chapters = try await services.sources.chapters.chapters(at: url, authorization: authorization)
            return WebChapters(
                ref: resolved.ref,
                chapters: chapters.enumerated().map { ChapterEntry(number: $0.offset + 1, $0.element) }
            )
        } catch {
            // The feed's file, not the page's question, is at fault: said, not a 500.
            return WebChapters(ref: resolved.ref, chapters: [], problem: error.description)
        }
    }

    package func find(_ words: String) async throws -> HitList {
        do {
            return HitList(try await services.find(words, limit: 50))
        } catch let problem as FindProblem {
            throw WebRefusal(.badRequest, problem.description)
        }
    }

    package func queue() async throws -> QueueList {
        QueueList(try await services.library.openIfExists()?.queue().map(QueueItemEntry.init) ?? [])
    }

    package func stats(by grouping: String) async throws -> StatsEntry {
        guard let by = ListeningStats.Grouping(rawValue: grouping) else {
            throw WebRefusal(.badRequest, "by must be podcast, month or week, not '\(grouping)'")
        }
        let records = try await services.library.openIfExists()?.playbacks(since: nil) ?? []
        return StatsEntry(ListeningStats(records, by: by), since: nil)
    }

    package func bookmarks() async throws -> BookmarkList {
        BookmarkList(try await services.bookmarkEntries())
    }

    package func savePlace(
        _ address: ListedAddress,
        seconds: Double,
        startedAt: Double?,
        ended: Bool,
        speed: Double?,
        wall: Double?
    ) async throws -> PlaceSaved {
        let resolved = try await resolve(address)
        guard seconds.isFinite, seconds >= 0, startedAt.map({ $0.isFinite && $0 >= 0 }) ?? true else {
            throw WebRefusal(.badRequest, "seconds must be a time in the episode")
        }
        // A place past the known length is the end, as the player reports it.
        let length = resolved.stored.seconds ?? .infinity
        try await services.listening.savePlace(
            of: resolved.episodeID,
            seconds: min(seconds, length),
            startedAt: startedAt,
            finished: ended
        )
        // A stretch heard on the page counts in `stats` as the terminal's plays do.
        if let startedAt, let library = try services.library.openIfExists() {
            let heard = min(seconds, length) - startedAt
            let speed = speed.flatMap { $0.isFinite && $0 > 0 ? min($0, 4) : nil } ?? 1
            if heard >= 1 {
                let identity = EpisodeIdentity(
                    episodeID: resolved.episodeID,
                    podcastTitle: resolved.podcast.title,
                    episodeTitle: resolved.stored.title,
                    feedURL: resolved.podcast.feedURL,
                    guid: resolved.stored.guid
                )
                let wall = wall.flatMap { $0.isFinite && $0 > 0 ? min($0, heard * 4) : nil } ?? heard / speed
                try await library.record(
                    PlaybackRecord(
                        episode: identity,
                        started: Date().addingTimeInterval(-wall),
                        fromSeconds: startedAt,
                        toSeconds: min(seconds, length),
                        mediaSeconds: heard,
                        wallSeconds: wall,
                        speed: speed,
                        silenceSkipped: 0,
                        finished: ended
                    )
                )
            }
        }
        let after = try await services.library.openIfExists()?.episode(resolved.episodeID)
        return PlaceSaved(
            ref: resolved.ref,
            position: after?.position ?? seconds,
            played: after?.played ?? ended
        )
    }

    package func addBookmark(_ address: ListedAddress, at seconds: Double, note: String?) async throws
        -> BookmarkEntry
    {
        let resolved = try await resolve(address)
        guard seconds.isFinite, seconds >= 0, seconds <= (resolved.stored.seconds ?? .infinity) else {
            throw WebRefusal(.badRequest, "at must be a time within the episode")
        }
        let note = note.map { SafeText.line($0).trimmingCharacters(in: .whitespaces) }
            .flatMap { $0.isEmpty ? nil : String($0.prefix(500)) }
        guard let library = try services.library.openIfExists(),
            try await library.addBookmark(episodeID: resolved.episodeID, at: seconds, note: note) != nil
        else { throw WebRefusal(.notFound, "\(address) is no longer in the library") }
        let entries = try await services.bookmarkEntries(of: resolved.episodeID)
        guard let made = entries.last else { throw WebRefusal(.conflict, "the bookmark was not kept") }
        return made
    }

    package func download(_ address: ListedAddress) async throws -> DownloadStart {
        let resolved = try await resolve(address)
        guard let state = try await services.downloads.start(resolved.episodeRef) else {
            throw WebRefusal(.notFound, "\(address) has no usable audio address")
        }
        return DownloadStart(ref: resolved.ref, state: state)
    }

    package func artwork(_ number: Int64) async -> (file: URL, type: String)? {
        guard let library = try? services.library.openIfExists(), let podcast = try? await library.podcast(number),
            let link = podcast.artworkURL, let url = URL(string: link),
            let cached = services.sources.images.cached(url),
            let type = cached.contentType, type.hasPrefix("image/"), !type.contains("svg")
        else { return nil }
        return (services.sources.images.file(for: url).final, type)
    }

    /// `P:E`, or the refusal that says what is there instead.
    private func resolve(_ address: ListedAddress) async throws -> ResolvedLibraryEpisode {
        do {
            return try await services.resolve(address)
        } catch let problem as AddressProblem {
            throw WebRefusal(.notFound, problem.description)
        }
    }
}
