import Downloads
import FeedKit
import FeedServices
import Foundation
import Library
import MediaKeys
import PlainText
import Playback
import ShellKit
import Synchronization

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
    /// Its saved position before this play, put back when the play fails.
    let savedPosition: Double
    /// What the listening history records it as, read with the plan (nil for
    /// what is no library episode).
    var identity: EpisodeIdentity? = nil
    /// The episode's `podcast:chapters`, in time order, given to mpv.
    let chapters: [PlayRequest.Chapter]
    /// Skip silence, loudness, intros, outros and chapters, as set for its podcast.
    let listening: ListeningSettings
    /// `--sleep`: when a sleep timer stops playback.
    let sleep: SleepTimer?
    /// What the desktop's now-playing shows (MPRIS).
    var nowPlaying: NowPlayingItem
    /// The media keys' link to the playback, while `play` has them.
    var remote: PlaybackRemote? = nil
    /// `play queue` or `play playlist` has an episode after this one.
    var nextEpisode = false

    /// The audio filters and rules mpv plays it with.
    func request(terminal: Bool) -> PlayRequest {
        PlayRequest(
            source: source,
            title: label.title,
            start: start,
            speed: speed,
            terminal: terminal,
            chapters: chapters,
            filters: AudioFilters(
                skipSilence: listening.skipSilence,
                loudness: listening.loudness,
                volumeBoost: listening.volumeBoost
            ),
            rules: PlaybackRules(
                skipOutro: listening.skipOutro,
                skipChapters: listening.skipChapters,
                sleep: sleep,
                bookmarkKey: episodeID != nil,
                nextEpisode: nextEpisode
            ),
            remote: remote
        )
    }
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

/// What a play does beside the player as it goes: the link another feedsh's
/// `sleep` reaches it by, and the bookmarks made with mpv's key.
final class PlaySideEffects: Sendable {
    private let plan: PlaybackPlan
    private let library: Library?
    private let state = Mutex<(link: PlayerLink?, saves: [Task<Void, Never>])>((nil, []))

    init(plan: PlaybackPlan, library: Library?) {
        self.plan = plan
        self.library = library
    }

    func handle(_ event: PlaybackEvent) {
        switch event {
        case .controlling(let socket):
            let link = PlayerLink(
                pid: getpid(),
                socket: socket,
                playing: "\(plan.label.number) \(plan.label.title)",
                sleep: plan.sleep?.word,
                sleepsAt: plan.sleep.flatMap { Self.sleepsAt($0, remaining: nil) }
            )
            state.withLock { $0.link = link }
            link.write()
        case .sleep(let timer, let remaining):
            let link = state.withLock { state -> PlayerLink? in
                state.link?.sleep = timer?.word
                state.link?.sleepsAt = timer.flatMap { Self.sleepsAt($0, remaining: remaining) }
                return state.link
            }
            link?.write()
        case .bookmark(let seconds):
            guard let library, let episodeID = plan.episodeID else { return }
            let save = Task { _ = try? await library.addBookmark(episodeID: episodeID, at: seconds, note: nil) }
            state.withLock { $0.saves.append(save) }
        default:
            break
        }
    }

    /// Waits for the bookmarks to be written and takes the link away.
    func finish() async {
        let (link, saves) = state.withLock { ($0.link, $0.saves) }
        for save in saves { await save.value }
        if let link { PlayerLink.remove(socket: link.socket) }
    }

    private static func sleepsAt(_ timer: SleepTimer, remaining: Double?) -> Double? {
        guard case .after(let seconds) = timer else { return nil }
        return Date().timeIntervalSince1970 + (remaining ?? seconds)
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
        sleep: SleepTimer? = nil,
        synopsis: String
    ) async throws(ShellError) -> PlaybackPlan {
        let request = target.request
        // The episode's state as the library has it now, by identity: the same
        // saved position and chapters whichever words named it.
        let stored = try await storedEpisode(target.subject?.episode)
        // Its podcast, read once: the chapters' credentials, the speed and the
        // history's record of it all come from this row.
        let podcast: StoredPodcast? =
            if let stored, let library = library.opened { try? await library.podcast(stored.podcastID) } else { nil }
        let downloaded = FileManager.default.fileExists(atPath: request.file.final.path)
        var chapters: [PlayRequest.Chapter] = []
        if let address = stored?.chaptersURL, let url = URL(string: address) {
            let cache = sources.chapters
            let authorization: String? =
                if let podcast, let id = podcast.id, let library = library.opened {
                    podcast.authorization(try? await library.credentials(of: id), for: url)
                } else { nil }
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
        let listening = await listeningSettings(ofPodcast: target.subject?.episode.podcast)
        // A play from the beginning starts after the intro (unless the episode is
        // no longer than it).
        let intro =
            listening.skipIntro > 0 && listening.skipIntro < (stored?.seconds ?? .infinity) ? listening.skipIntro : 0
        let seconds: Double
        switch start {
        case .saved:
            let saved = stored?.played == true ? 0 : stored?.position ?? 0
            seconds = saved > 0 ? saved : intro
        case .beginning: seconds = intro
        case .at(let at): seconds = at
        case .chapter(let number):
            guard chapters.indices.contains(number - 1) else {
                let have = chapters.isEmpty ? "it has none" : "it has 1-\(chapters.count)"
                throw .usage("no chapter \(number) in \(target.label.number) (\(have))", synopsis: synopsis)
            }
            seconds = chapters[number - 1].start
        }
        // mpv started past the end plays nothing and fails: a place asked for
        // (--at, --chapter, a bookmark, a hit) is refused here, with the length,
        // before anything is changed. A saved place is the player's own reading
        // of the file, kept even where the feed's length is short.
        if start != .saved, start != .beginning, let length = stored?.seconds, length > 0, seconds >= length {
            throw .failure(ListeningFailure.pastTheEnd(ref: target.label.number, at: seconds, length: length))
        }
        return PlaybackPlan(
            label: target.label,
            source: downloaded ? request.file.final.path : request.url.absoluteString,
            streaming: !downloaded,
            start: seconds,
            speed: await speed(of: podcast),
            player: await player(),
            episodeID: target.subject?.episode.episode,
            savedPosition: stored?.position ?? 0,
            identity: stored.flatMap { stored in
                podcast.map {
                    EpisodeIdentity(
                        episodeID: stored.id,
                        podcastTitle: $0.title,
                        episodeTitle: stored.title,
                        feedURL: $0.feedURL,
                        guid: stored.guid
                    )
                }
            },
            chapters: chapters,
            listening: listening,
            sleep: sleep,
            nowPlaying: NowPlayingItem(
                id: request.id.rawValue,
                title: stored?.title ?? target.label.title,
                podcast: podcast?.title ?? target.label.podcast ?? "",
                artist: podcast?.author,
                artwork: podcast.flatMap { sources.cachedArtwork(of: $0)?.path },
                length: stored?.seconds
            )
        )
    }

    /// The listening settings for an episode of `podcastID`: the library's, with
    /// the podcast's own over them.
    func listeningSettings(ofPodcast podcastID: Int64?) async -> ListeningSettings {
        let settings = await library.settings()
        guard let podcastID, let library = library.opened,
            let own = try? await library.podcastSettings(podcastID)
        else { return settings.listening() }
        return settings.listening(overriddenBy: own)
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
            var wrote = false
            for await seconds in positions where ContinuousClock.now - lastSave >= Self.positionSaveInterval {
                lastSave = .now
                if library != nil, let episodeID {
                    // The call every front end saves a place through (the web page too).
                    try? await self.savePlace(of: episodeID, seconds: seconds)
                    wrote = true
                }
            }
            return wrote
        }
        let end: PlaybackEnd
        let side = PlaySideEffects(plan: plan, library: library)
        let started = Date()
        do throws(PlaybackError) {
            end = try await Player.play(plan.request(terminal: terminal), with: plan.player) { event in
                if case .position(let seconds, _) = event { continuation.yield(seconds) }
                side.handle(event)
                events(event)
            }
        } catch {
            continuation.finish()
            let wrote = await saver.value
            await side.finish()
            await Self.putBack(plan, in: library, if: wrote)
            throw error
        }
        continuation.finish()
        let wrote = await saver.value
        await side.finish()
        // A play that failed changes nothing: no history, no position, no mark.
        if case .failed = end.reason {
            await Self.putBack(plan, in: library, if: wrote)
            return (end, .notKept)
        }
        if let library, episodeID != nil, end.listened.heard > 0 || end.finished {
            let record = end
            await Task {
                await Self.history(record, plan: plan, started: started, in: library)
            }.value
        }
        // In a task of its own: a cancelled `play` still records where it stopped.
        let record = await Task {
            await Self.record(end, of: episodeID, startedAt: plan.start, in: library)
        }.value
        return (end, record)
    }

    /// Writes back the position the play started from, when positions were saved
    /// while it ran; in a task of its own, so that a cancelled play still does.
    private static func putBack(_ plan: PlaybackPlan, in library: Library?, if wrote: Bool) async {
        guard wrote, let library, let episodeID = plan.episodeID else { return }
        await Task { try? await library.savePosition(episodeID, seconds: plan.savedPosition) }.value
    }

    /// Adds the playback to the listening history.
    private static func history(
        _ end: PlaybackEnd,
        plan: PlaybackPlan,
        started: Date,
        in library: Library
    ) async {
        guard let identity = plan.identity else { return }
        _ = try? await library.record(
            PlaybackRecord(
                episode: identity,
                started: started,
                fromSeconds: plan.start,
                toSeconds: end.finished ? end.duration ?? end.position ?? plan.start : end.position ?? plan.start,
                mediaSeconds: end.listened.heard,
                wallSeconds: end.listened.wall,
                speed: plan.speed,
                silenceSkipped: end.listened.silenceSkipped,
                finished: end.finished
            )
        )
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
