import Background
import Downloads
import Foundation
import Library
import Synchronization

/// A shell's connection to the background feedsh of its library. The states of the
/// downloads it runs live on the session's ``DownloadBoard``, kept current by its
/// events.
package final class BackgroundLink: Sendable {
    package let client: ControlClient
    package let pid: Int32

    package init(client: ControlClient, pid: Int32) {
        self.client = client
        self.pid = pid
    }

    package var isAlive: Bool { !closed.withLock { $0 } }
    private let closed = Mutex(false)
    package func markClosed() { closed.withLock { $0 = true } }
}

extension BackgroundLink: RemoteDownloads {
    package func request(_ operation: RemoteOperation, _ ids: [DownloadID]) async -> [(
        DownloadRequest, DownloadManager.State
    )]? {
        guard isAlive else { return nil }
        let op: ControlRequest.Operation =
            switch operation {
            case .pause: .pause
            case .resume: .resume
            case .cancel: .cancel
            }
        guard let result = try? await client.request(op, ids: ids.map(\.rawValue)) else { return nil }
        return (result.downloads ?? []).map { ($0.request, $0.engineState) }
    }
}

extension HandedDownload {
    package var label: DownloadLabel {
        DownloadLabel(handedAs: number, title: title, podcast: podcast, episodeID: episodeID, podcastID: podcastID)
    }
}

extension DownloadLabel {
    /// A download as a shell handed it to the background feedsh: named by its
    /// address (`P:E` for a library episode).
    package init(handedAs number: String, title: String, podcast: String?, episodeID: Int64?, podcastID: Int64?) {
        let episode = podcastID.flatMap { podcast in episodeID.map { EpisodeRef(podcast: podcast, episode: $0) } }
        self.init(number: number, title: title, ref: episode == nil ? nil : number, podcast: podcast, episode: episode)
    }
}

extension ControlDownload {
    /// Its id, as the engine knows it (the socket carries its text).
    package var downloadID: DownloadID { DownloadID(id) }

    /// As the engine would say it.
    package var engineState: DownloadManager.State {
        switch state {
        case .queued: .queued
        case .running: .running(bytes.map { DownloadProgress(bytes: $0, total: total, bytesPerSecond: bytesPerSecond) })
        case .paused: .paused(bytes: bytes ?? 0, total: total)
        case .completed: .completed(bytes: bytes ?? 0)
        case .failed: .failed(.reported(code: code ?? "background", message: message ?? "failed"))
        case .cancelled: .cancelled
        }
    }

    /// The event a shell reports for this new state.
    package var event: DownloadEvent {
        switch state {
        case .queued: .queued(id: downloadID)
        case .running:
            bytes.map {
                .progress(id: downloadID, DownloadProgress(bytes: $0, total: total, bytesPerSecond: bytesPerSecond))
            } ?? .started(id: downloadID, offset: 0)
        case .paused: .paused(id: downloadID, bytes: bytes ?? 0, total: total)
        case .completed: .completed(id: downloadID, bytes: bytes ?? 0, file: URL(fileURLWithPath: path))
        case .failed: .failed(id: downloadID, .reported(code: code ?? "background", message: message ?? "failed"))
        case .cancelled: .cancelled(id: downloadID)
        }
    }

    package var label: DownloadLabel {
        DownloadLabel(handedAs: number, title: title, podcast: podcast, episodeID: episodeID, podcastID: podcastID)
    }

    /// The request it stands for (its URL unknown here: only its file matters).
    package var request: DownloadRequest {
        DownloadRequest(
            id: downloadID,
            url: URL(fileURLWithPath: "/"),
            file: DownloadLayout.File(final: URL(fileURLWithPath: path))
        )
    }

    /// A download's state as the background process reports it.
    package init(_ request: DownloadRequest, handed: HandedDownload, state: DownloadManager.State) {
        var download = ControlDownload(
            id: request.id.rawValue,
            number: handed.number,
            title: handed.title,
            path: request.file.final.path,
            state: .queued
        )
        download.episodeID = handed.episodeID
        download.podcastID = handed.podcastID
        download.podcast = handed.podcast
        switch state {
        case .queued: break
        case .running(let progress):
            download.state = .running
            download.bytes = progress?.bytes
            download.total = progress?.total
            download.bytesPerSecond = progress?.bytesPerSecond
        case .paused(let bytes, let total):
            download.state = .paused
            download.bytes = bytes
            download.total = total
        case .completed(let bytes):
            download.state = .completed
            download.bytes = bytes
        case .failed(let error):
            download.state = .failed
            download.message = error.description
            download.code = error.code.description
        case .cancelled:
            download.state = .cancelled
        }
        self = download
    }
}
