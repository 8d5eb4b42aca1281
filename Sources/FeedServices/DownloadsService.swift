import Downloads
import Foundation
import Synchronization

/// Every download feedsh can see and how each is named: this process's engine,
/// the one view (``DownloadBoard``) that merges it with the background feedsh and
/// other processes' locks, the download folder's layout, and the label of each
/// download id with its library episode (``DownloadName``).
public final class DownloadsService: Sendable {
    /// The download folder: where each episode's file and `.part` go.
    package let layout: DownloadLayout
    /// The engine that runs this process's downloads.
    public let engine: DownloadManager
    /// Every download this process can see, as one view and one stream of changes
    /// that the shell (or the background feedsh) observes.
    package let board: DownloadBoard<[CleanupDeletion]>
    /// How to name each download in messages, and which library episode it is,
    /// by download id: set by whatever made its request.
    private let names = Mutex<[DownloadID: DownloadName]>([:])
    /// The link to the background feedsh, once connected.
    private let background = Mutex<BackgroundLink?>(nil)
    /// The library whose episodes are downloaded: what a finished download
    /// records, and what cleanup reads.
    package let library: LibraryService
    /// The concurrency, rate and size given on the command line, and where the
    /// background feedsh finds the library.
    package let configuration: Configuration

    package init(
        layout: DownloadLayout,
        engine: DownloadManager,
        rateLimit: Int64?,
        library: LibraryService,
        configuration: Configuration
    ) {
        self.layout = layout
        self.engine = engine
        self.library = library
        self.configuration = configuration
        engine.limiter.rate = rateLimit
        board = DownloadBoard(engine: engine)
    }

    /// The background feedsh of this library, once connected.
    package var backgroundLink: BackgroundLink? {
        get { background.withLock { $0 } }
        set { background.withLock { $0 = newValue } }
    }

    /// How download `id` is shown: its label when one was kept, else its id.
    package func label(for id: DownloadID) -> DownloadLabel { name(for: id).label }

    /// How download `id` is named and which episode it is: as kept, else its id.
    package func name(for id: DownloadID) -> DownloadName {
        knownName(for: id) ?? DownloadName(DownloadLabel(number: id.rawValue, title: ""))
    }

    /// The name kept for download `id`, if any.
    package func knownName(for id: DownloadID) -> DownloadName? {
        names.withLock { $0[id] }
    }

    /// Keeps `name` for download `id`; with `replacing: false`, only when none is
    /// kept yet.
    package func keep(_ name: DownloadName, for id: DownloadID, replacing: Bool = true) {
        names.withLock { names in
            if replacing || names[id] == nil { names[id] = name }
        }
    }
}
