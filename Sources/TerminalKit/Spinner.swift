import Synchronization

/// A spinner on one line of a terminal, shown only when the work takes longer than a
/// moment, and erased before anything else is printed.
public final class Spinner: Sendable {
    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    private struct State {
        var task: Task<Void, Never>?
        var shown = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void

    /// Starts counting: after `delay` it draws `label` with a turning wheel, through
    /// `write`, until ``stop()``.
    public init(
        _ label: String,
        after delay: Duration = .milliseconds(300),
        interval: Duration = .milliseconds(100),
        write: @escaping @Sendable (String) -> Void
    ) {
        self.write = write
        let task = Task { [weak self] in
            try? await Task.sleep(for: delay)
            var frame = 0
            while !Task.isCancelled {
                let drawn = self?.state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.shown = true
                    write("\r\u{1B}[K" + Self.frames[frame % Self.frames.count] + " " + label)
                    return true
                }
                guard drawn == true else { return }
                frame += 1
                try? await Task.sleep(for: interval)
            }
        }
        state.withLock { $0.task = task }
    }

    /// Erases the spinner if it was shown, and says whether it was; nothing is
    /// drawn after this returns.
    @discardableResult
    public func stop() -> Bool {
        let (task, shown) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            guard !state.stopped else { return (nil, false) }
            state.stopped = true
            if state.shown { write("\r\u{1B}[K") }
            return (state.task, state.shown)
        }
        task?.cancel()
        return shown
    }

    deinit {
        state.withLock { $0.task?.cancel() }
    }
}
