import Sync

/// One sync at a time: `sync` and the automatic ones wait for the one before, so
/// nothing is sent twice by two of them.
public actor SyncService {
    /// The last sync started or queued.
    private var tail: Task<Void, Never>?
    /// An automatic sync is queued and has not started: another one would find
    /// nothing more to do.
    private var automaticQueued = false
    /// Syncs queued or running, with what they report.
    private var unfinished = 0

    package nonisolated let configuration: Configuration
    package nonisolated let library: LibraryService
    package nonisolated let sources: SourcesService

    package init(configuration: Configuration, library: LibraryService, sources: SourcesService) {
        self.configuration = configuration
        self.library = library
        self.sources = sources
    }

    /// Whether a sync is running or queued now.
    package var underWay: Bool { unfinished > 0 }

    /// Queues an automatic sync unless one is queued and not started yet (that
    /// one will see every change made so far); false when none was queued.
    /// `interrupted` is what a sync stopped before it started fails with.
    package func queueAutomatic<Failure: Error>(
        _ sync: @escaping @Sendable () async throws(Failure) -> SyncReport,
        interrupted: Failure,
        then: @escaping @Sendable (Result<SyncReport, Failure>) async -> Void
    ) -> Bool {
        guard !automaticQueued else { return false }
        automaticQueued = true
        _ = enqueue(automatic: true, sync, interrupted: interrupted, then: then)
        return true
    }

    /// Queues `sync` after every one queued before; the task gives what it
    /// reported, after `then` had it.
    package func enqueue<Failure: Error>(
        automatic: Bool = false,
        _ sync: @escaping @Sendable () async throws(Failure) -> SyncReport,
        interrupted: Failure,
        then: @escaping @Sendable (Result<SyncReport, Failure>) async -> Void = { _ in }
    ) -> Task<Result<SyncReport, Failure>, Never> {
        let previous = tail
        unfinished += 1
        let run = Task { () async -> Result<SyncReport, Failure> in
            await previous?.value
            if automatic { self.started() }
            let result: Result<SyncReport, Failure>
            do throws(Failure) {
                // Stopped while it waited for the one before: it never starts.
                if Task.isCancelled { throw interrupted }
                result = .success(try await sync())
            } catch {
                result = .failure(error)
            }
            await then(result)
            self.finished()
            return result
        }
        tail = Task { _ = await run.value }
        return run
    }

    /// Returns once every sync queued so far, and what it reported, is done.
    package func settled() async {
        while unfinished > 0, let tail {
            await tail.value
        }
    }

    private func started() { automaticQueued = false }
    private func finished() { unfinished -= 1 }
}
