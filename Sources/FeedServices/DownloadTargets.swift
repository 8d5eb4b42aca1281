import Downloads
import FeedKit
import Foundation
import Library
import PlainText

/// How the downloads service makes and names the downloads of episodes and songs:
/// every route that makes a download request makes it here, so a finished
/// download, `delete` and `play` find its library episode whichever words named
/// it.
extension DownloadsService {
    /// A download finished: a library episode records it, and cleanup runs for its
    /// podcast. Returns the files cleanup deleted.
    package func downloadCompleted(_ id: DownloadID) async -> [CleanupDeletion] {
        guard let episode = knownName(for: id)?.subject?.episode, let library = self.library.opened else { return [] }
        try? await library.markDownloaded(episode.episode)
        return await cleanUp([episode.podcast])
    }

    /// The download of episode `number` (1-based) of `podcast`, a subscription's
    /// when `subscription` is given (labelled `prefix` + number: `2:3`).
    package func request(
        number: Int,
        of podcast: Podcast,
        subscription: LoadedSubscription?,
        prefix: String = ""
    ) -> DownloadRequest {
        let episode = podcast.episodes[number - 1]
        let libraryID = subscription?.marks.marks(at: number - 1, id: episode.id)?.libraryID
        // Which library episode it is, and its address from any shell (P:E).
        let subject = subscription?.podcast.id.flatMap { podcastID in
            libraryID.map {
                DownloadSubject(
                    episode: EpisodeRef(podcast: podcastID, episode: $0),
                    listed: ListedAddress(podcast: podcastID, number: number)
                )
            }
        }
        return register(
            DownloadName(
                DownloadLabel(number: prefix + String(number), title: episode.title, podcast: podcast.title),
                subject: subject
            ),
            for: DownloadRequest(
                id: DownloadID(episode: episode.id),
                url: episode.audioURL,
                file: file(of: episode, in: podcast),
                declaredLength: episode.declaredLength,
                authorization: subscription?.authorization(for: episode.audioURL)
            )
        )
    }

    /// Keeps how to name the download `request` and which library episode it is:
    /// every route that makes a download request makes it through here, so a
    /// finished download, `delete` and `play` find its episode whichever words
    /// named it.
    package func register(_ name: DownloadName, for request: DownloadRequest) -> DownloadRequest {
        keep(name, for: request.id)
        return request
    }

    /// The download target of a library episode resolved by identity (a `find`
    /// hit, a queue entry, a new episode): named by its `P:E`, with its
    /// subscription's credentials on the feed's own origin. Nil when its
    /// enclosure URL is unusable.
    package func target(
        of resolved: ResolvedLibraryEpisode,
        credentials: FeedCredentials?
    ) -> DownloadTarget? {
        guard let episode = resolved.stored.episode(in: resolved.podcast),
            let file = file(of: resolved.stored, in: resolved.podcast)
        else { return nil }
        let name = DownloadName(
            DownloadLabel(number: resolved.ref, title: episode.title, podcast: resolved.podcast.title),
            subject: DownloadSubject(
                episode: resolved.episodeRef,
                listed: ListedAddress(podcast: resolved.podcastNumber, number: resolved.episodeNumber)
            )
        )
        let request = register(
            name,
            for: DownloadRequest(
                id: DownloadID(episode: episode.id),
                url: episode.audioURL,
                file: file,
                declaredLength: episode.declaredLength,
                authorization: resolved.podcast.authorization(credentials, for: episode.audioURL)
            )
        )
        return DownloadTarget(name: name, request: request)
    }

    /// The download targets of library episodes named by identity, in the order
    /// given (those gone since are left out).
    package func targets(of refs: [EpisodeRef]) async throws(LibraryError) -> [DownloadTarget] {
        guard !refs.isEmpty, let library = try self.library.openIfExists() else { return [] }
        let (resolved, credentials) = (try await library.resolve(refs), try await library.allCredentials())
        return resolved.compactMap { target(of: $0, credentials: credentials[$0.podcastNumber]) }
    }

    /// Where an episode's file goes.
    package func file(of episode: Episode, in podcast: Podcast) -> DownloadLayout.File {
        layout.file(podcastID: podcast.id, episodeID: episode.id, extension: episode.fileExtension)
    }

    /// Where a library episode's file goes; nil when its enclosure URL is unusable.
    package func file(of stored: StoredEpisode, in podcast: StoredPodcast) -> DownloadLayout.File? {
        stored.episode(in: podcast).map {
            layout.file(podcastID: podcast.downloadKey, episodeID: $0.id, extension: $0.fileExtension)
        }
    }

    /// The download of a song's preview: `{download-dir}/previews/{trackId}.{ext}`,
    /// labelled `tN` after its number in the `tracks` list.
    package func previewRequest(number: Int, of track: Track, url: URL) -> DownloadRequest {
        register(
            DownloadName(DownloadLabel(number: "t\(number)", title: track.title)),
            for: DownloadRequest(
                id: DownloadID("preview-\(track.id)"),
                url: url,
                file: DownloadLayout.File(
                    final: layout.root.appendingPathComponent("previews", isDirectory: true)
                        .appendingPathComponent("\(track.id).\(track.previewExtension)")
                )
            )
        )
    }

    /// The status of a download, from the engine, the background process or the disk.
    package func status(of request: DownloadRequest) async -> EpisodeStatus {
        EpisodeStatus(engine: await board.state(of: request.id), disk: layout.status(of: request.file))
    }

    package func status(of episode: Episode, in podcast: Podcast) async -> EpisodeStatus {
        EpisodeStatus(
            engine: await board.state(of: DownloadID(episode: episode.id)),
            disk: layout.status(of: file(of: episode, in: podcast))
        )
    }

    /// The downloads of the library's new episodes (of `podcastIDs` when given),
    /// each named by its `P:E` as every table names it.
    package func newTargets(of podcastIDs: Set<Int64>? = nil) async throws(LibraryError) -> [DownloadTarget] {
        let fresh = try await library.open().newEpisodes().filter { podcastIDs?.contains($0.podcast.id ?? -1) ?? true }
        return try await targets(
            of: fresh.compactMap { pair in
                guard let podcast = pair.podcast.id, let episode = pair.episode.id else { return nil }
                return EpisodeRef(podcast: podcast, episode: episode)
            }
        )
    }
}
