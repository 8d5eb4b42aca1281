import Foundation
import Synchronization

/// A count that moves whenever what `serve`'s feeds are made of may have changed:
/// the library's file (a commit writes its WAL; a checkpoint, the file) or a
/// complete file arriving in, or leaving, the download folder. Read through
/// inotify, so a change made by any process counts (the shell downloading beside
/// `serve`, another shell marking), and reading it costs one non-blocking read.
///
/// Feeds are rendered once for each value (``RenderedFeeds``). A value read
/// before a render covers what the render reads: whatever changes during the
/// render moves the count again, so nothing stays served stale.
final class ChangeWatch: Sendable {
    /// What is watched, and the events not yet read.
    private struct State {
        var descriptor: Int32 = -1
        /// The watches of the download folder's podcast folders, by descriptor.
        var folders: [Int32: String] = [:]
        /// The download folder's watch, and the library's folder's (one and the
        /// same when the library lives there); -1 until the folder is there.
        var root: Int32 = -1
        var libraryFolder: Int32 = -1
        var count: UInt64 = 0
    }

    let downloads: String
    let library: String
    private let state = Mutex(State())
    /// Where events are read into, under the lock.
    private let buffer = EventBuffer()

    /// Memory for a read of events, kept for the watch's life: a read happens
    /// at every request.
    private final class EventBuffer: Sendable {
        static let size = 64 << 10
        // Written only by `drain`, which runs under the watch's lock.
        nonisolated(unsafe) let bytes = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        deinit { bytes.deallocate() }
    }

    /// Watches `downloads` (the root and each podcast folder) and the folder of
    /// the library file at `library`.
    init(downloads: URL, library: URL) {
        self.downloads = downloads.standardizedFileURL.path
        self.library = library.standardizedFileURL.path
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    /// The count now; nil when a change cannot be told (inotify refused, the
    /// library's folder or the download folder missing), so that every request
    /// renders as before.
    func current() -> UInt64? {
        state.withLock { state in
            if state.descriptor < 0 {
                state.descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
                guard state.descriptor >= 0 else { return nil }
            }
            drain(&state)
            // A folder not there yet: watched once it is, and until then no
            // value (so no render is kept).
            if state.libraryFolder < 0 {
                state.libraryFolder = watch(
                    (library as NSString).deletingLastPathComponent,
                    events: IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM,
                    in: state.descriptor
                )
                state.count &+= 1
            }
            if state.root < 0 {
                state.root = watch(downloads, events: Self.folderEvents, in: state.descriptor)
                if state.root >= 0 { watchPodcastFolders(&state) }
                state.count &+= 1
            }
            return state.libraryFolder >= 0 && state.root >= 0 ? state.count : nil
        }
    }

    private static let folderEvents =
        IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF
        | IN_MOVE_SELF

    /// Adds `events` to what `path` is watched for (IN_MASK_ADD: the library may
    /// live in the download folder, and one folder is one watch).
    private func watch(_ path: String, events: Int32, in descriptor: Int32) -> Int32 {
        inotify_add_watch(descriptor, path, UInt32(events | IN_ONLYDIR) | UInt32(IN_MASK_ADD))
    }

    /// Each podcast folder in the download folder, watched (again: a folder
    /// watched before keeps its watch).
    private func watchPodcastFolders(_ state: inout State) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: downloads) else { return }
        for name in names where !name.hasPrefix(".") {
            let path = downloads + "/" + name
            let folder = watch(path, events: Self.folderEvents, in: state.descriptor)
            if folder >= 0 { state.folders[folder] = path }
        }
    }

    /// Reads every event waiting; each that can change a feed moves the count.
    private func drain(_ state: inout State) {
        let buffer = self.buffer.bytes
        while true {
            let read = Glibc.read(state.descriptor, buffer, EventBuffer.size)
            guard read > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= read {
                let event = buffer.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name =
                    event.len > 0
                    ? String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self)) : ""
                offset = nameStart + Int(event.len)
                handle(event, name: name, in: &state)
            }
        }
    }

    private func handle(_ event: inotify_event, name: String, in state: inout State) {
        let mask = Int32(bitPattern: event.mask)
        if mask & IN_Q_OVERFLOW != 0 {
            // Events were lost: count a change, and watch every folder again.
            state.count &+= 1
            watchPodcastFolders(&state)
            return
        }
        if mask & IN_IGNORED != 0 {
            // A watch gone with its folder (or the root, or the library's).
            state.folders[event.wd] = nil
            if event.wd == state.root { state.root = -1 }
            if event.wd == state.libraryFolder { state.libraryFolder = -1 }
            state.count &+= 1
            return
        }
        if event.wd == state.libraryFolder {
            let file = (library as NSString).lastPathComponent
            if name == file || name == file + "-wal" { state.count &+= 1 }
        }
        guard event.wd == state.root || state.folders[event.wd] != nil else { return }
        if event.wd == state.root, mask & IN_ISDIR != 0, mask & (IN_CREATE | IN_MOVED_TO) != 0,
            !name.hasPrefix(".")
        {
            let path = downloads + "/" + name
            let folder = watch(path, events: Self.folderEvents, in: state.descriptor)
            if folder >= 0 { state.folders[folder] = path }
        }
        // A partial download and its sidecar come and go while it runs; only a
        // complete file (renamed into place) or a folder changes a feed.
        if name.hasPrefix(".") || name.hasSuffix(".part") || name.hasSuffix(".part.json") { return }
        state.count &+= 1
    }
}
