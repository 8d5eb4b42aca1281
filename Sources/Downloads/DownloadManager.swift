import DequeModule
import Foundation
import HTTPSupport
import OrderedCollections
import Synchronization

/// Runs downloads in the background: at most `maxConcurrent` at once, the rest
/// queued in order, each pausable, resumable and cancellable.
///
/// Pausing cancels the transfer (it does not rely on suspending a connection) and
/// keeps `.part` and sidecar; resuming continues them with a Range request, in this
/// run or a later one. What happens is reported on ``events``.
public actor DownloadManager {
    /// Where a download stands.
    public enum State: Sendable, Equatable {
        case queued
        case running(DownloadProgress?)
        case paused(bytes: Int64, total: Int64?)
        case completed(bytes: Int64)
        case failed(DownloadError)
        case cancelled

        /// Queued or running: not finished one way or another.
        public var isActive: Bool {
            switch self {
            case .queued, .running: true
            default: false
            }
        }

        /// Paused or failed: `resume` continues it.
        public var isResumable: Bool {
            switch self {
            case .paused, .failed: true
            default: false
            }
        }
    }

    private enum StopIntent { case pause, cancel }

    private struct Entry {
        var request: DownloadRequest
        var state: State
        var task: Task<Void, Never>?
        var stopIntent: StopIntent?
    }

    public nonisolated let events: AsyncStream<DownloadEvent>
    private nonisolated let continuation: AsyncStream<DownloadEvent>.Continuation
    /// How many events were put on ``events``: a reader that has handled as many
    /// has reported everything so far.
    private nonisolated let yielded = EventCounter()
    public nonisolated var eventsYielded: Int { yielded.value }
    private let transport: any DownloadTransport
    private let policy: RetryPolicy
    /// The largest file a download may write (`--max-filesize`, `set max-size`);
    /// past it the download fails and its `.part` is removed. A change applies to
    /// downloads that start after it.
    public nonisolated var maxFileSize: Int64 {
        get { maxFileSizeValue.load(ordering: .relaxed) }
        set { maxFileSizeValue.store(newValue, ordering: .relaxed) }
    }
    private nonisolated let maxFileSizeValue: Atomic<Int64>
    /// The cap on the total rate of every download, `fetch` included
    /// (`--limit-rate`, `set rate-limit`); its ``RateLimiter/rate`` is nil for none.
    public nonisolated let limiter = RateLimiter()
    public private(set) var maxConcurrent: Int
    /// In the order they were first started, for listings.
    private var entries: OrderedDictionary<DownloadID, Entry> = [:]
    /// Ids waiting to start, oldest first. An id whose entry is no longer queued
    /// (paused or cancelled meanwhile) is skipped when it comes up, so that taking
    /// one out costs nothing.
    private var queue = Deque<DownloadID>()
    /// Entries in the running state: kept, not counted, so that starting thousands
    /// stays linear.
    private var running = 0
    /// Cleared by ``stopStarting()``: from then on nothing new starts.
    private nonisolated let starting = Atomic<Bool>(true)
    private var changeWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    public init(
        transport: any DownloadTransport,
        maxConcurrent: Int = 3,
        policy: RetryPolicy = .init(),
        maxFileSize: Int64 = DownloadManager.defaultMaxFileSize
    ) {
        precondition(maxConcurrent > 0, "maxConcurrent must be positive")
        self.transport = transport
        maxFileSizeValue = Atomic(maxFileSize)
        self.maxConcurrent = maxConcurrent
        self.policy = policy
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The largest file downloaded unless configured otherwise: 4 GiB.
    public static let defaultMaxFileSize: Int64 = DownloadPlanner.defaultMaxFileSize

    /// What `start` did.
    public enum StartResult: Sendable, Equatable {
        case started
        case queued
        case alreadyActive
    }

    /// Downloads in the caller's task, for a command that waits for its file (an
    /// image): the same rules, retries and `.part` files as a background download,
    /// with progress given to `progress` instead of ``events``, outside the queue.
    ///
    /// Cancelling the calling task stops the transfer and throws `CancellationError`;
    /// the `.part` stays (``removePartial(_:)`` deletes it). Other failures throw
    /// ``DownloadError``.
    public nonisolated func fetch(
        _ request: DownloadRequest,
        progress: @escaping @Sendable (DownloadEvent) -> Void
    ) async throws -> DownloadOutcome {
        try await DownloadJob(
            request: request,
            transport: transport,
            policy: policy,
            maxFileSize: maxFileSize,
            limiter: limiter,
            emit: progress
        ).run()
    }

    /// Starts (or queues) a download, continuing any `.part` on disk.
    @discardableResult
    public func start(_ request: DownloadRequest) -> StartResult {
        start([request])[0]
    }

    /// Starts (or queues) downloads in order, in one step: linear in their number.
    @discardableResult
    public func start(_ requests: [DownloadRequest]) -> [StartResult] {
        var results: [StartResult] = []
        results.reserveCapacity(requests.count)
        for request in requests {
            if let entry = entries[request.id], entry.state.isActive {
                results.append(.alreadyActive)
                continue
            }
            entries[request.id] = Entry(request: request, state: .queued)
            queue.append(request.id)
            yield(.queued(id: request.id))
            schedule()
            results.append(entries[request.id]?.state == .queued ? .queued : .started)
        }
        return results
    }

    /// From now on no download starts, queued or new (after SIGTERM or SIGINT, while
    /// the running ones are being paused). Safe to call from a signal handler's task.
    public nonisolated func stopStarting() {
        starting.store(false, ordering: .sequentiallyConsistent)
    }

    /// Pauses a queued or running download. Returns its state afterwards, or nil when
    /// it was not active.
    public func pause(_ id: DownloadID) async -> State? {
        guard var entry = entries[id], entry.state.isActive else { return nil }
        if entry.state == .queued {
            let bytes = fileSize(entry.request.file.part.path)
            entry.state = .paused(bytes: bytes, total: Sidecar.load(from: entry.request.file.sidecar)?.expectedLength)
            entries[id] = entry
            yield(.paused(id: id, bytes: bytes, total: nil))
            notifyChange()
            return entry.state
        }
        entry.stopIntent = .pause
        entries[id] = entry
        entry.task?.cancel()
        await entry.task?.value
        return entries[id]?.state
    }

    /// Cancels a download and removes its `.part` and sidecar. Returns false when
    /// there was nothing to cancel.
    public func cancel(_ id: DownloadID) async -> Bool {
        await cancel([id])[id] ?? false
    }

    /// Cancels downloads: first every queued one (so that stopping a running one
    /// starts none of them), then the running ones, all at once. Says for each id
    /// whether there was something to cancel.
    public func cancel(_ ids: [DownloadID]) async -> [DownloadID: Bool] {
        var results: [DownloadID: Bool] = [:]
        var runningTasks: [Task<Void, Never>] = []
        for id in ids {
            guard var entry = entries[id] else {
                results[id] = false
                continue
            }
            switch entry.state {
            case .queued, .paused, .failed:
                _ = try? removePartial(entry.request)
                entry.state = .cancelled
                entries[id] = entry
                yield(.cancelled(id: id))
                results[id] = true
            case .running:
                entry.stopIntent = .cancel
                entries[id] = entry
                entry.task?.cancel()
                if let task = entry.task { runningTasks.append(task) }
                results[id] = true
            case .completed, .cancelled:
                results[id] = false
            }
        }
        notifyChange()
        for task in runningTasks { await task.value }
        return results
    }

    public func state(of id: DownloadID) -> State? {
        entries[id]?.state
    }

    /// Every download this manager knows, in the order they were started.
    public func all() -> [(request: DownloadRequest, state: State)] {
        entries.values.map { ($0.request, $0.state) }
    }

    /// Waits until none of `ids` (all when nil) is queued or running, or until the
    /// calling task is cancelled (Ctrl-C stops waiting, not the downloads).
    public func waitUntilIdle(_ ids: [DownloadID]? = nil) async {
        while !Task.isCancelled,
            entries.contains(where: { (ids?.contains($0.key) ?? true) && $0.value.state.isActive })
        {
            let waiter = nextWaiter
            nextWaiter += 1
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if Task.isCancelled {
                        continuation.resume()
                    } else {
                        changeWaiters[waiter] = continuation
                    }
                }
            } onCancel: {
                Task { await self.resumeWaiter(waiter) }
            }
        }
    }

    private func resumeWaiter(_ waiter: Int) {
        changeWaiters.removeValue(forKey: waiter)?.resume()
    }

    /// Pauses everything active (on quit or a signal) and stops the transport:
    /// queued downloads first, so that none starts while the running ones stop.
    public func shutdown() async {
        stopStarting()
        for (id, entry) in entries where entry.state == .queued {
            _ = await pause(id)
        }
        var stopping: [Task<Void, Never>] = []
        for (id, var entry) in entries where entry.state.isActive {
            entry.stopIntent = .pause
            entries[id] = entry
            entry.task?.cancel()
            if let task = entry.task { stopping.append(task) }
        }
        for task in stopping { await task.value }
        await transport.shutdown()
        continuation.finish()
    }

    /// Changes how many downloads run at once; more start at once when it grows,
    /// and running ones finish when it shrinks.
    public func setMaxConcurrent(_ count: Int) {
        precondition(count > 0, "maxConcurrent must be positive")
        maxConcurrent = count
        schedule()
    }

    private nonisolated func yield(_ event: DownloadEvent) {
        yielded.increment()
        continuation.yield(event)
    }

    private func schedule() {
        while running < maxConcurrent, starting.load(ordering: .sequentiallyConsistent), let id = queue.popFirst() {
            guard var entry = entries[id], entry.state == .queued else { continue }
            let job = DownloadJob(
                request: entry.request,
                transport: transport,
                policy: policy,
                maxFileSize: maxFileSize,
                limiter: limiter,
                emit: { [weak self, continuation, yielded] event in
                    yielded.increment()
                    continuation.yield(event)
                    if case .progress(let id, let progress) = event, let self {
                        Task { await self.record(progress, for: id) }
                    }
                }
            )
            entry.state = .running(nil)
            entry.stopIntent = nil
            entry.task = Task { [weak self] in
                let outcome: Result<Int64, any Error>
                do {
                    outcome = .success(try await job.run().bytes)
                } catch {
                    outcome = .failure(error)
                }
                await self?.finished(id, outcome)
            }
            entries[id] = entry
            running += 1
        }
    }

    private func record(_ progress: DownloadProgress, for id: DownloadID) {
        guard var entry = entries[id], case .running = entry.state else { return }
        entry.state = .running(progress)
        entries[id] = entry
    }

    private func finished(_ id: DownloadID, _ outcome: Result<Int64, any Error>) {
        guard var entry = entries[id] else { return }
        running -= 1
        entry.task = nil
        let request = entry.request
        switch outcome {
        case .success(let bytes):
            entry.state = .completed(bytes: bytes)
            yield(.completed(id: id, bytes: bytes, file: request.file.final))
        case .failure(let error as DownloadError):
            entry.state = .failed(error)
            yield(.failed(id: id, error))
        case .failure:
            if entry.stopIntent == .cancel {
                _ = try? removePartial(request)
                entry.state = .cancelled
                yield(.cancelled(id: id))
            } else {
                let sidecar = Sidecar.load(from: request.file.sidecar)
                let bytes = sidecar?.confirmedBytes ?? 0
                entry.state = .paused(bytes: bytes, total: sidecar?.expectedLength)
                yield(.paused(id: id, bytes: bytes, total: sidecar?.expectedLength))
            }
        }
        entry.stopIntent = nil
        entries[id] = entry
        schedule()
        notifyChange()
    }

    /// Deletes a download's `.part` and sidecar; says whether there was a `.part`.
    /// Throws ``DownloadError/locked(path:pid:)`` and touches nothing when another
    /// process (or job) owns the download.
    @discardableResult
    public nonisolated func removePartial(_ request: DownloadRequest) throws(DownloadError) -> Bool {
        try PartFile.remove(path: request.file.part.path, sidecar: request.file.sidecar.path)
    }

    /// The pid of another process that owns this download now: nil when none does,
    /// `.some(nil)` when one does whose pid cannot be read.
    public nonisolated func owner(of request: DownloadRequest) -> Int32?? {
        PartFile.lockHolder(of: request.file.part.path)
    }

    private func notifyChange() {
        let waiters = changeWaiters.values
        changeWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}

/// A count that several threads add to: events put on a stream, or handled.
public final class EventCounter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    public func increment() {
        count.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    public var value: Int { count.load(ordering: .sequentiallyConsistent) }
}
