import Downloads
import Foundation

/// What commands do to downloads, through the downloads service: wherever a
/// download runs (this engine, the background feedsh, another process), these
/// act where it is.
extension DownloadsService {
    /// Starts (or queues) downloads here, continuing any `.part` on disk.
    package func start(_ requests: [DownloadRequest]) async -> [DownloadManager.StartResult] {
        await engine.start(requests)
    }

    /// Fetches `request` in the foreground (`image`), reporting its progress.
    package func fetch(
        _ request: DownloadRequest,
        progress: @escaping @Sendable (DownloadEvent) -> Void
    ) async throws -> DownloadOutcome {
        try await engine.fetch(request, progress: progress)
    }

    /// The state of download `id` in this engine, if it knows it.
    package func state(of id: DownloadID) async -> DownloadManager.State? {
        await engine.state(of: id)
    }

    /// This process's downloads and their states.
    package func here() async -> [(request: DownloadRequest, state: DownloadManager.State)] {
        await engine.all()
    }

    /// Pauses download `id` here.
    package func pauseHere(_ id: DownloadID) async {
        _ = await engine.pause(id)
    }

    /// Cancels downloads `ids` here (queued ones first), saying which were running.
    package func cancelHere(_ ids: [DownloadID]) async -> [DownloadID: Bool] {
        await engine.cancel(ids)
    }

    /// Which other process holds `request`'s file (`.some(nil)`: one whose pid is
    /// unknown), or nil when none does.
    package func owner(of request: DownloadRequest) -> Int32?? {
        engine.owner(of: request)
    }

    /// Deletes `request`'s `.part` and its sidecar; false when there was none.
    package func removePartial(_ request: DownloadRequest) throws(DownloadError) -> Bool {
        try engine.removePartial(request)
    }

    /// Pauses `request` where it runs, here or in the background feedsh.
    package func pause(_ request: DownloadRequest) async -> PauseOutcome {
        await board.pause(request)
    }

    /// Resumes `request` in the background feedsh when that holds it; its state
    /// before, or nil when it is not held there.
    package func resumeWhereHeld(_ request: DownloadRequest) async -> DownloadManager.State? {
        await board.resumeWhereHeld(request)
    }

    /// Cancels those of `requests` the background feedsh holds; by id, whether
    /// each was cancelled there.
    package func cancelWhereHeld(_ requests: [DownloadRequest]) async -> [DownloadID: Bool] {
        await board.cancelWhereHeld(requests)
    }

    /// Every download this process sees, wherever it runs.
    package func all() async -> [DownloadView] {
        await board.all()
    }

    /// One download as this process sees it, wherever it runs.
    package func view(of request: DownloadRequest) async -> DownloadView? {
        await board.view(of: request)
    }

    /// Returns when `requests` (every download, when nil) have ended, wherever
    /// they ran.
    package func settle(_ requests: [DownloadRequest]? = nil) async {
        await board.settle(requests)
    }

    /// What is on disk for `file`: nothing, a partial download, or the whole file.
    package func disk(_ file: DownloadLayout.File) -> DownloadLayout.Status {
        layout.status(of: file)
    }

    /// How many downloads run at once here now.
    package var maxConcurrent: Int {
        get async { await engine.maxConcurrent }
    }

    /// The rate cap in effect, bytes a second; nil for none.
    package var rateLimit: Int64? { engine.limiter.rate }

    /// The download folder.
    package var folder: URL { layout.root }
}
