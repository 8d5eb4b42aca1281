import Foundation
import Library
import Synchronization

/// The library file, opened (and migrated) once, the first time something needs
/// it, and its settings as last read.
public final class LibraryService: Sendable {
    let file: URL
    private let state = Mutex<(opened: Library?, settings: Settings?)>((nil, nil))

    init(file: URL) {
        self.file = file
    }

    /// The library, opened the first time.
    func open() throws(LibraryError) -> Library {
        if let opened = state.withLock({ $0.opened }) { return opened }
        let library = try Library(path: file.path)
        return state.withLock { state in
            if let opened = state.opened { return opened }
            state.opened = library
            return library
        }
    }

    /// The library once something opened it; nil before.
    var opened: Library? { state.withLock { $0.opened } }

    /// Whether the library's file is there (or it is open).
    var exists: Bool { opened != nil || FileManager.default.fileExists(atPath: file.path) }

    /// The settings as last read, if they were.
    var cachedSettings: Settings? {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }
}
