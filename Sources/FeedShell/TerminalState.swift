import Downloads
import FeedKit
import Foundation
import LineEditor
import Synchronization

/// What the interactive shell shares between its command loop, the download event
/// printer and the line editor's completion: all behind mutexes.
final class TerminalState: Sendable {
    private struct State {
        var editor: LineEditor?
        var snapshot = CompletionSnapshot()
        var running: [String: StatusArea.Entry] = [:]
        /// Ids of running downloads, in the order they started.
        var order: [String] = []
        var command: Task<CommandOutcome, Never>?
    }

    private let state = Mutex(State())

    /// The editor while the interactive shell runs; nil in scripts.
    var editor: LineEditor? {
        get { state.withLock { $0.editor } }
        set { state.withLock { $0.editor = newValue } }
    }

    var snapshot: CompletionSnapshot {
        state.withLock { $0.snapshot }
    }

    /// The command running in the foreground, which Ctrl-C cancels.
    var command: Task<CommandOutcome, Never>? {
        get { state.withLock { $0.command } }
        set { state.withLock { $0.command = newValue } }
    }

    /// Re-reads the episodes and their statuses for completion.
    func refreshSnapshot(_ session: Session) async {
        var entries: [CompletionSnapshot.EpisodeEntry] = []
        if let podcast = await session.podcast {
            let statuses = await session.statuses()
            for (index, episode) in podcast.episodes.enumerated() {
                entries.append(
                    .init(
                        number: index + 1,
                        title: TerminalText.line(episode.title),
                        status: statuses[episode.id] ?? .none
                    )
                )
            }
        }
        let results = await session.searchResults.map { TerminalText.line($0.title) }
        let tracks = await session.tracks.map { TerminalText.line($0.title) }
        state.withLock {
            $0.snapshot = CompletionSnapshot(episodes: entries, searchResults: results, tracks: tracks)
        }
    }

    /// A download event in the interactive shell: progress goes to the status area,
    /// news above the prompt, and the prompt's download count follows.
    func report(_ event: DownloadEvent, label: String, to editor: LineEditor, session: Session) async {
        /// A download joined or left the active ones: prompt and completion follow.
        var countChanged = false
        state.withLock { state in
            switch event {
            case .started(let id, _):
                if state.running[id] == nil { state.order.append(id) }
                state.running[id] = .init(label: label, progress: state.running[id]?.progress)
            case .progress(let id, let progress):
                if state.running[id] == nil { state.order.append(id) }
                state.running[id] = .init(label: label, progress: progress)
            case .completed(let id, _, _), .failed(let id, _), .paused(let id, _, _), .cancelled(let id):
                state.running[id] = nil
                state.order.removeAll { $0 == id }
                countChanged = true
            case .queued, .restarted, .retrying:
                break
            }
        }
        if let line = DownloadReporter.message(for: event, label: label) {
            editor.post([line])
        }
        // By episode number, so that lines keep their places as they redraw.
        let entries = state.withLock { state in state.order.compactMap { state.running[$0] } }.sorted {
            ($0.label.prefix { $0 != " " }.count, $0.label) < ($1.label.prefix { $0 != " " }.count, $1.label)
        }
        editor.setStatus(StatusArea.lines(entries, width: Console.terminalWidth()))
        if case .queued = event { countChanged = true }
        if countChanged {
            await refreshSnapshot(session)
            editor.setPrompt(await Shell.prompt(session))
        }
    }
}
