import Foundation

/// Who runs a download.
public enum DownloadHolder: Sendable, Equatable {
    /// This process's engine (or nobody: a download nothing runs is listed here).
    case here
    /// The background feedsh, over its control socket.
    case background
    /// Another process holds the download's lock (another shell); its pid when the
    /// lock file says.
    case elsewhere(pid: Int32?)

    /// The contract's word for it (DESIGN.md, `downloads --json`'s `holder`).
    public var name: String {
        switch self {
        case .here: "here"
        case .background: "background"
        case .elsewhere: "other"
        }
    }
}

/// A download as every feedsh sees it: its request, its state and who runs it.
public struct DownloadView: Sendable, Equatable {
    public let request: DownloadRequest
    public let state: DownloadManager.State
    public let holder: DownloadHolder

    public var id: DownloadID { request.id }

    public init(request: DownloadRequest, state: DownloadManager.State, holder: DownloadHolder) {
        self.request = request
        self.state = state
        self.holder = holder
    }
}

/// Another process that runs downloads for this one (the background feedsh), as
/// ``DownloadBoard`` reaches it.
public protocol RemoteDownloads: Sendable {
    /// Asks it to act on downloads it holds; their requests and states after, or
    /// nil when it cannot be reached.
    func request(_ operation: RemoteOperation, _ ids: [DownloadID]) async -> [(DownloadRequest, DownloadManager.State)]?
}

/// What ``DownloadBoard`` asks of the downloads another process holds.
public enum RemoteOperation: Sendable {
    case pause, resume, cancel
}

/// What ``DownloadBoard/pause(_:)`` did.
public enum PauseOutcome: Sendable, Equatable {
    case paused(bytes: Int64, total: Int64?, holder: DownloadHolder)
    /// It completed before the pause could take.
    case finishedFirst
    /// Another process holds its lock: only that one can pause it.
    case heldElsewhere(pid: Int32?)
    /// Nothing runs it.
    case notRunning
    /// The background feedsh holds it and went away.
    case unreachable
}

/// A change ``DownloadBoard`` reports, in the order it happened: the event, who runs
/// the download, and what finishing it did (``DownloadBoard/run(finish:observe:)``'s
/// `finish`, for a download this process completed).
public struct DownloadChange<Aftermath: Sendable>: Sendable {
    public let event: DownloadEvent
    public let holder: DownloadHolder
    public let aftermath: Aftermath?
}

/// One view of every download a feedsh can see: this process's engine, the
/// background feedsh (told through ``remoteChanged(_:state:event:)``) and other
/// processes holding a download's lock.
///
/// Its changes come out as one ordered stream (``run(finish:observe:)``), and
/// ``settle(_:)`` waits until downloads stop being active wherever they run, and
/// returns only after the news of how they ended has been observed. What a
/// completed download does (record it, clean up) is the `finish` given to `run`,
/// for the shell and the background feedsh alike.
public actor DownloadBoard<Aftermath: Sendable> {
    public nonisolated let engine: DownloadManager
    private enum Input: Sendable {
        case engine(DownloadEvent)
        case remote(DownloadEvent)
        case remoteGone

        var isProgress: Bool {
            switch self {
            case .engine(.progress), .remote(.progress): true
            default: false
            }
        }
    }
    private nonisolated let inputs: AsyncStream<Input>
    private nonisolated let input: AsyncStream<Input>.Continuation
    /// The background feedsh's latest view of each download it holds.
    private var remote: [DownloadID: (request: DownloadRequest, state: DownloadManager.State)] = [:]
    private var remoteAlive = false
    /// How the background feedsh is reached, while it is connected.
    private var remoteControl: (any RemoteDownloads)?
    /// Remote changes told but not yet observed.
    private var pendingRemote = 0
    /// Engine events observed (against ``DownloadManager/eventsYielded``).
    private var observedEngineEvents = 0
    /// Whether ``run(finish:observe:)`` is observing: without an observer there is
    /// no news to wait for.
    private var observing = false
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0
    /// Polls the lock files of downloads other processes hold while someone waits
    /// for them: a lock gives no notice when it is let go.
    private var lockWatch: Task<Void, Never>?

    private struct Waiter {
        let ids: Set<DownloadID>?
        /// Those another process held when the wait began: watched until it lets
        /// them go (a lock gives no notice).
        var elsewhere: [DownloadRequest]
        let continuation: CheckedContinuation<Void, Never>
        /// How many engine events had been put out when its downloads were seen
        /// ended: it resumes once the observer has seen that many.
        var endedAt: Int?
    }

    public init(engine: DownloadManager) {
        self.engine = engine
        (inputs, input) = AsyncStream.makeStream(of: Input.self)
        let input = input
        Task {
            for await event in engine.events { input.yield(.engine(event)) }
            input.finish()
        }
    }

    /// Runs until the engine shuts down: each change, from the engine or the
    /// background feedsh, goes to `observe` in order; a completion here runs
    /// `finish` first (its result rides on the change).
    public func run(
        finish: @escaping @Sendable (DownloadID) async -> Aftermath?,
        observe: @escaping @Sendable (DownloadChange<Aftermath>) async -> Void
    ) async {
        observing = true
        defer { observing = false }
        for await next in inputs {
            switch next {
            case .engine(let event):
                var aftermath: Aftermath? = nil
                if case .completed(let id, _, _) = event { aftermath = await finish(id) }
                await observe(DownloadChange(event: event, holder: .here, aftermath: aftermath))
                observedEngineEvents += 1
            case .remote(let event):
                await observe(DownloadChange(event: event, holder: .background, aftermath: nil))
                pendingRemote -= 1
            case .remoteGone:
                break
            }
            // Progress changes no download's state: only the news count moves.
            await wakeWaiters(statesChanged: !next.isProgress)
        }
        resumeAllWaiters()
    }

    /// The background feedsh says a download it holds is now `state` (`event`).
    public func remoteChanged(_ request: DownloadRequest, state: DownloadManager.State, event: DownloadEvent?) {
        remoteAlive = true
        remote[request.id] = (request, state)
        if let event {
            pendingRemote += 1
            input.yield(.remote(event))
        }
    }

    /// The background feedsh is connected (with what it holds), or went away:
    /// what it said last is then no one's state.
    public func remoteConnected(
        _ downloads: [(DownloadRequest, DownloadManager.State)],
        control: any RemoteDownloads
    ) {
        remoteAlive = true
        remoteControl = control
        for (request, state) in downloads { remote[request.id] = (request, state) }
    }

    public func remoteGone() {
        remoteAlive = false
        remoteControl = nil
        remote.removeAll()
        input.yield(.remoteGone)
    }

    /// Pauses a download where it runs: here, or in the background feedsh.
    public func pause(_ request: DownloadRequest) async -> PauseOutcome {
        switch await engine.pause(request.id) {
        case .paused(let bytes, let total)?: return .paused(bytes: bytes, total: total, holder: .here)
        case .completed?: return .finishedFirst
        default: break
        }
        if let held = remote[request.id], held.state.isActive {
            guard let after = await askRemote(.pause, [request.id]).first else { return .unreachable }
            switch after.state {
            case .paused(let bytes, let total): return .paused(bytes: bytes, total: total, holder: .background)
            case .completed: return .finishedFirst
            default: return .notRunning
            }
        }
        if let pid = engine.owner(of: request) { return .heldElsewhere(pid: pid) }
        return .notRunning
    }

    /// Continues a paused or failed download the background feedsh holds, there:
    /// its state before (to say from where), or nil when the background holds no
    /// such download (or cannot be reached) and it is for this engine to start.
    public func resumeWhereHeld(_ request: DownloadRequest) async -> DownloadManager.State? {
        guard await engine.state(of: request.id)?.isActive != true, let held = remote[request.id],
            held.state.isResumable, !(await askRemote(.resume, [request.id]).isEmpty)
        else { return nil }
        return held.state
    }

    /// Cancels, in the background feedsh, those of `requests` it holds unfinished;
    /// for each of them whether it could (false: it went away). The others are for
    /// this engine.
    public func cancelWhereHeld(_ requests: [DownloadRequest]) async -> [DownloadID: Bool] {
        var there: [DownloadID] = []
        for request in requests where await engine.state(of: request.id)?.isActive != true {
            if let held = remote[request.id], held.state.isActive || held.state.isResumable {
                there.append(request.id)
            }
        }
        guard !there.isEmpty else { return [:] }
        let reached = !(await askRemote(.cancel, there).isEmpty)
        return Dictionary(there.map { ($0, reached) }) { first, _ in first }
    }

    /// Asks the background feedsh and keeps what it answers; empty when it cannot
    /// be reached.
    private func askRemote(
        _ operation: RemoteOperation,
        _ ids: [DownloadID]
    ) async -> [(request: DownloadRequest, state: DownloadManager.State)] {
        guard let remoteControl, let after = await remoteControl.request(operation, ids) else { return [] }
        for (request, state) in after { remote[request.id] = (request, state) }
        return after
    }

    /// Where `request` stands: running here, in the background, held by another
    /// process, or as this engine last left it; nil when nothing knows it.
    public func view(of request: DownloadRequest) async -> DownloadView? {
        let local = await engine.state(of: request.id)
        if let local, local.isActive { return DownloadView(request: request, state: local, holder: .here) }
        if let held = remote[request.id] {
            return DownloadView(request: held.request, state: held.state, holder: .background)
        }
        if let pid = engine.owner(of: request) {
            return DownloadView(request: request, state: local ?? .running(nil), holder: .elsewhere(pid: pid))
        }
        return local.map { DownloadView(request: request, state: $0, holder: .here) }
    }

    /// A download's state: this engine's while it runs it, else the background
    /// feedsh's when that holds it, else what this engine last left (locks of other
    /// processes not consulted: ``view(of:)`` says who holds one).
    public func state(of id: DownloadID) async -> DownloadManager.State? {
        let local = await engine.state(of: id)
        if local?.isActive != true, let held = remote[id] { return held.state }
        return local
    }

    /// Every download this engine and the background feedsh know: this engine's
    /// in the order they started (one the background took over listed as it is
    /// there, one another process has taken up since as held there), then the
    /// background's others, active first.
    public func all() async -> [DownloadView] {
        var views: [DownloadView] = []
        var seen: Set<DownloadID> = []
        for (request, state) in await engine.all() {
            seen.insert(request.id)
            if !state.isActive, let held = remote[request.id] {
                views.append(DownloadView(request: held.request, state: held.state, holder: .background))
            } else if !state.isActive, let pid = engine.owner(of: request) {
                views.append(DownloadView(request: request, state: state, holder: .elsewhere(pid: pid)))
            } else {
                views.append(DownloadView(request: request, state: state, holder: .here))
            }
        }
        let others = remote.values.filter { !seen.contains($0.request.id) }
            .sorted { ($0.state.isActive ? 0 : 1, $0.request.id) < ($1.state.isActive ? 0 : 1, $1.request.id) }
        for held in others { views.append(DownloadView(request: held.request, state: held.state, holder: .background)) }
        return views
    }

    /// Waits until none of `requests` (every download here and in the background
    /// when nil) is queued or running anywhere, and the news of how each ended has
    /// been observed; or until the calling task is cancelled (Ctrl-C stops
    /// waiting, not the downloads). Those another process holds count until it
    /// lets them go. Waiters are woken as ``run(finish:observe:)`` observes changes,
    /// so it must be running (the shell's printer, the background's recorder).
    public func settle(_ requests: [DownloadRequest]? = nil) async {
        let waiter = nextWaiter
        nextWaiter += 1
        var elsewhere: [DownloadRequest] = []
        for request in requests ?? [] where await engine.state(of: request.id)?.isActive != true {
            if engine.owner(of: request) != nil { elsewhere.append(request) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters[waiter] = Waiter(
                    ids: requests.map { Set($0.map(\.id)) },
                    elsewhere: elsewhere,
                    continuation: continuation
                )
                Task { await self.wakeWaiters(statesChanged: true) }
            }
        } onCancel: {
            Task { await self.resume(waiter) }
        }
    }

    private func resume(_ waiter: Int) {
        waiters.removeValue(forKey: waiter)?.continuation.resume()
        if waiters.isEmpty { stopLockWatch() }
    }

    private func resumeAllWaiters() {
        for waiter in waiters.keys { resume(waiter) }
    }

    /// Resumes the waiters whose downloads have ended and whose news has been
    /// observed. The states are read again only when `statesChanged` (not for
    /// progress, many a second while downloads run).
    private func wakeWaiters(statesChanged: Bool) async {
        guard !waiters.isEmpty else { return }
        if statesChanged {
            let states = Dictionary(await engine.all().map { ($0.request.id, $0.state) }) { first, _ in first }
            // After reading the states: an ended download's event was put out by then.
            let yielded = engine.eventsYielded
            for key in Array(waiters.keys) {
                guard var waiter = waiters[key] else { continue }
                waiter.elsewhere.removeAll { engine.owner(of: $0) == nil }
                let activeHere = states.contains { (waiter.ids?.contains($0.key) ?? true) && $0.value.isActive }
                let activeThere =
                    remoteAlive
                    && remote.values.contains { (waiter.ids?.contains($0.request.id) ?? true) && $0.state.isActive }
                let ended = !activeHere && !activeThere && waiter.elsewhere.isEmpty
                waiter.endedAt = ended ? (waiter.endedAt ?? yielded) : nil
                waiters[key] = waiter
            }
        }
        for (key, waiter) in waiters {
            guard let endedAt = waiter.endedAt else { continue }
            if !observing || (observedEngineEvents >= endedAt && pendingRemote == 0) { resume(key) }
        }
        let watching = waiters.values.contains { !$0.elsewhere.isEmpty }
        if !watching {
            stopLockWatch()
        } else if lockWatch == nil {
            lockWatch = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(200))
                    await self?.wakeWaiters(statesChanged: true)
                }
            }
        }
    }

    private func stopLockWatch() {
        lockWatch?.cancel()
        lockWatch = nil
    }
}
