/// What `operation` gives, or nil when it has not finished within `limit` (it is
/// cancelled then, and must end when cancelled): a wait that never ends fails its
/// test instead of hanging the run. Shared by the test targets that wait on
/// streams (the engine's events, the control socket's).
public func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
