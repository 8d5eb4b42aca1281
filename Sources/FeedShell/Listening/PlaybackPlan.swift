import Downloads
import FeedKit
import Foundation
import Library
import PlainText
import Playback
import ShellKit

/// What `play` does with one episode or song, as the session decides it: the
/// downloaded file or the stream, from the saved position, at the speed set,
/// through the player set.
struct PlaybackPlan: Sendable {
    let label: DownloadLabel
    /// The downloaded file's path, or the episode's URL.
    let source: String
    let streaming: Bool
    /// Seconds in: the saved position, unless played or asked from the start.
    let start: Double
    let speed: Double
    let player: PlayerCommand
    /// The library episode that keeps the position, when it is one.
    let episodeID: Int64?
    /// The episode's `podcast:chapters`, in time order, given to mpv.
    let chapters: [PlayRequest.Chapter]
}

/// Where `play` starts.
enum PlayStart: Sendable, Equatable {
    /// The saved position (the beginning when played or none is saved).
    case saved
    /// `--from-start`.
    case beginning
    /// `--at 12:34`: seconds in.
    case at(Double)
    /// `--chapter K`: chapter K's start (K from 1).
    case chapter(Int)

    /// `95`, `12:34`, `1:02:03`, `12:34.5`: seconds; nil when it is none of them,
    /// or past a week (no episode is that long).
    static func seconds(_ text: String) -> Double? {
        ClockTime.seconds(text, fields: 1...3)
    }
}

/// How the end of playback was recorded in the library.
enum PositionRecord: Sendable, Equatable {
    /// Played, or the position where it stopped.
    case saved
    /// Not a library episode (a lookup's, a song), or no position was known.
    case notKept
    case failed(LibraryError)
}

extension ListeningService {
    /// How often the position is written while playing.
    static let positionSaveInterval = Duration.seconds(5)

    private static func read(_ cache: ChaptersCache, _ url: URL, _ authorization: String?) async -> Result<
        [Chapter], FeedError
    > {
        do throws(FeedError) {
            return .success(try await cache.chapters(at: url, authorization: authorization))
        } catch {
            return .failure(error)
        }
    }

    /// How long `play` waits for chapters it was not asked to start at, before it
    /// plays without them (a slow server must not hold up a downloaded episode).
    static let chaptersWait = Duration.seconds(5)

    /// The plan for playing `target` from `start`. A library episode's chapters
    /// are read (when its feed names them: from the cache, else the network) so
    /// that mpv has them; when they cannot be read (in ``chaptersWait``, unless
    /// `start` is one of them), it plays without them.
    func playbackPlan(
        for target: DownloadTarget,
        start: PlayStart,
        synopsis: String
    ) async throws(ShellError) -> PlaybackPlan {
        let request = target.request
        // The episode's state as the library has it now, by identity: the same
        // saved position and chapters whichever words named it.
        let stored = try await storedEpisode(target.label.episode)
        let downloaded = FileManager.default.fileExists(atPath: request.file.final.path)
        var chapters: [PlayRequest.Chapter] = []
        if let address = stored?.chaptersURL, let url = URL(string: address) {
            let cache = sources.chapters
            let authorization: String? =
                if let id = stored?.id { await library.authorization(for: url, ofEpisode: id) } else { nil }
            let read: Result<[Chapter], FeedError>?
            if case .chapter = start {
                read = await Self.read(cache, url, authorization)
            } else {
                read = await withTaskGroup(of: Result<[Chapter], FeedError>?.self) { group in
                    group.addTask { await Self.read(cache, url, authorization) }
                    group.addTask {
                        try? await Task.sleep(for: Self.chaptersWait)
                        return nil
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
            }
            switch read {
            case .success(let list)?: chapters = list.map { PlayRequest.Chapter(start: $0.start, title: $0.title) }
            case .failure(let error)?: if case .chapter = start { throw .feed(error) }
            case nil: break
            }
        } else if case .chapter = start, downloaded {
            // mpv reads a file's own chapters as it plays; `--chapter K` needs them first.
            chapters = try await self.chapters(inFile: request.file.final.path).map {
                PlayRequest.Chapter(start: $0.start, title: $0.title)
            }
        }
        let seconds: Double
        switch start {
        case .saved: seconds = stored?.played == true ? 0 : stored?.position ?? 0
        case .beginning: seconds = 0
        case .at(let at): seconds = at
        case .chapter(let number):
            guard chapters.indices.contains(number - 1) else {
                let have = chapters.isEmpty ? "it has none" : "it has 1-\(chapters.count)"
                throw .usage("no chapter \(number) in \(target.label.number) (\(have))", synopsis: synopsis)
            }
            seconds = chapters[number - 1].start
        }
        return PlaybackPlan(
            label: target.label,
            source: downloaded ? request.file.final.path : request.url.absoluteString,
            streaming: !downloaded,
            start: seconds,
            speed: await speed(ofPodcast: target.label.episode?.podcast),
            player: await player(),
            episodeID: target.label.episode?.episode,
            chapters: chapters
        )
    }

    /// The library's row of `episode` (nil for what is no library episode).
    func storedEpisode(_ episode: EpisodeRef?) async throws(ShellError) -> StoredEpisode? {
        guard let episode, let library = try self.library.ifMade() else { return nil }
        return try await libraryCall { () async throws(LibraryError) in try await library.episode(episode.episode) }
    }

    /// The chapters inside a downloaded file, as the player (mpv) reads them,
    /// sanitized.
    func chapters(inFile path: String) async throws(ShellError) -> [Chapter] {
        do throws(PlaybackError) {
            return try await Player.chapters(inFile: path, with: await player()).map {
                Chapter(start: $0.start, title: SafeText.line($0.title))
            }
        } catch {
            throw .playback(error)
        }
    }

    /// The podcast's own speed (`set podcast P speed X`), else the `speed` setting.
    func speed(ofPodcast podcastID: Int64?) async -> Double {
        if let podcastID, let library = try? self.library.make(), let podcast = try? await library.podcast(podcastID),
            let speed = podcast.speed
        {
            return speed
        }
        return await library.settings().speed
    }

    /// Plays `plan` until the player exits, passing its events on and writing the
    /// position to the library every few seconds; then records how it ended
    /// (played, or where it stopped), also when the calling task was cancelled
    /// (Ctrl-C asks the player to quit).
    func play(
        _ plan: PlaybackPlan,
        terminal: Bool,
        events: @escaping @Sendable (PlaybackEvent) -> Void
    ) async throws(PlaybackError) -> (end: PlaybackEnd, record: PositionRecord) {
        let library = plan.episodeID == nil ? nil : self.library.opened
        let episodeID = plan.episodeID
        let (positions, continuation) = AsyncStream<Double>.makeStream()
        let saver = Task {
            var lastSave = ContinuousClock.now
            for await seconds in positions where ContinuousClock.now - lastSave >= Self.positionSaveInterval {
                lastSave = .now
                if let library, let episodeID { try? await library.savePosition(episodeID, seconds: seconds) }
            }
        }
        let end: PlaybackEnd
        do throws(PlaybackError) {
            end = try await Player.play(
                PlayRequest(
                    source: plan.source,
                    title: plan.label.title,
                    start: plan.start,
                    speed: plan.speed,
                    terminal: terminal,
                    chapters: plan.chapters
                ),
                with: plan.player
            ) { event in
                if case .position(let seconds, _) = event { continuation.yield(seconds) }
                events(event)
            }
        } catch {
            continuation.finish()
            await saver.value
            throw error
        }
        continuation.finish()
        await saver.value
        // In a task of its own: a cancelled `play` still records where it stopped.
        let record = await Task {
            await Self.record(end, of: episodeID, startedAt: plan.start, in: library)
        }.value
        return (end, record)
    }

    /// Played at the end (or past 95 %), else the last position; either records
    /// the sync `play` action.
    private static func record(
        _ end: PlaybackEnd,
        of episodeID: Int64?,
        startedAt start: Double,
        in library: Library?
    ) async -> PositionRecord {
        guard let library, let episodeID else { return .notKept }
        do throws(LibraryError) {
            if end.finished {
                try await library.mark([episodeID], .played)
            } else if let position = end.position {
                try await library.savePosition(episodeID, seconds: position, startedAt: start)
            } else {
                return .notKept
            }
            return .saved
        } catch {
            return .failed(error)
        }
    }
}
