import Foundation
import Library
import Synchronization

/// The library file, opened (and migrated) once, the first time something needs
/// it, and its settings as last read.
public final class LibraryService: Sendable {
    package let file: URL
    /// What flags and the environment give, which wins over what `set` stored.
    package let overrides: [Setting: (value: String, source: String)]
    private let connections: Library.Connections
    private let state = Mutex<(opened: Library?, settings: Settings?)>((nil, nil))

    package init(
        file: URL,
        overrides: [Setting: (value: String, source: String)] = [:],
        connections: Library.Connections = .pool
    ) {
        self.file = file
        self.overrides = overrides
        self.connections = connections
    }

    /// The library, opened the first time.
    package func open() throws(LibraryError) -> Library {
        if let opened = state.withLock({ $0.opened }) { return opened }
        let library = try Library(path: file.path, connections: connections)
        return state.withLock { state in
            if let opened = state.opened { return opened }
            state.opened = library
            return library
        }
    }

    /// Closes the library's connection(s) now, not when the last task holding it
    /// lets go (at exit, maybe never): the last to close folds the WAL into the
    /// file and takes the WAL's files away.
    package func close() {
        opened?.close()
    }

    /// The library once something opened it; nil before.
    package var opened: Library? { state.withLock { $0.opened } }

    /// Whether the library's file is there (or it is open).
    package var exists: Bool { opened != nil || FileManager.default.fileExists(atPath: file.path) }

    /// The settings as last read, if they were.
    package var cachedSettings: Settings? {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// The library when there is one (opened if needed); nil, without making one,
    /// when its file does not exist: for what only reads it (settings, the away
    /// report).
    package func existing() -> Library? {
        guard exists else { return nil }
        return try? open()
    }

    /// The library when it exists and may hold away events not reported yet; a
    /// plain read tells that without opening (and migrating) it, so that a start
    /// with nothing to report leaves it closed.
    package func existingWithAwayEvents() -> Library? {
        guard opened != nil || Library.mayHoldUnreportedAwayEvents(at: file.path) else { return nil }
        return existing()
    }

    /// The library when its file exists (opened if needed, failing as ``open()``
    /// does); nil, without making one, when it does not: for what only reads it
    /// (`find`, `queue`).
    package func openIfExists() throws(LibraryError) -> Library? {
        guard exists else { return nil }
        return try open()
    }
}
