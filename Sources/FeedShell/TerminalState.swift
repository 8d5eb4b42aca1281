import Downloads
import FeedKit
import FeedServices
import Foundation
import LineEditor
import PlainText
import ShellKit
import Synchronization
import TerminalKit

/// What completion knows about the session, refreshed after each command and when
/// downloads start or end, so that Tab answers at once and never touches the
/// network. Live progress is laid over it when Tab is pressed.
public struct CompletionSnapshot: Sendable, Equatable {
    public struct EpisodeEntry: Sendable, Equatable {
        /// What Tab puts on the line: the episode's number in the loaded podcast,
        /// or, with none loaded, a download's `P:E`.
        let word: String
        /// The download's id, to find its live progress.
        let id: DownloadID
        let title: String
        let status: EpisodeStatus

        init(number: Int, id: DownloadID, title: String, status: EpisodeStatus) {
            self.init(word: String(number), id: id, title: title, status: status)
        }

        init(word: String, id: DownloadID, title: String, status: EpisodeStatus) {
            self.word = word
            self.id = id
            self.title = title
            self.status = status
        }
    }

    var episodes: [EpisodeEntry] = []
    /// Titles of the last search's results, for `open`.
    var searchResults: [String] = []
    /// Titles of the last `tracks` list, for `preview`.
    var tracks: [String] = []
    /// Numbers and titles of the subscriptions, once the library is open.
    var subscriptions: [SubscriptionEntry] = []
    var playlists: [String] = []

    /// A subscription as Tab offers it.
    struct SubscriptionEntry: Equatable, Sendable {
        let number: Int64
        let title: String
    }

    public init() {}

    init(
        episodes: [EpisodeEntry],
        searchResults: [String] = [],
        tracks: [String] = [],
        subscriptions: [SubscriptionEntry] = [],
        playlists: [String] = []
    ) {
        self.episodes = episodes
        self.searchResults = searchResults
        self.tracks = tracks
        self.subscriptions = subscriptions
        self.playlists = playlists
    }

    /// The items of a completion domain, with `live` progress laid over the
    /// statuses (by download id); a command's domain offers the episodes its
    /// declaration accepts (`offers`, by command name), ``CompletionDomain/episodes``
    /// all of them.
    func items(
        _ domain: String,
        live: [DownloadID: DownloadProgress] = [:],
        offers: [String: EpisodeFilter] = [:]
    ) -> [CompletionItem] {
        switch domain {
        case CompletionDomain.searchResults:
            return searchResults.enumerated().map { CompletionItem(String($0.offset + 1), note: $0.element) }
        case CompletionDomain.songs:
            return tracks.enumerated().map { CompletionItem(String($0.offset + 1), note: $0.element) }
        case CompletionDomain.subscriptions:
            return subscriptions.map { CompletionItem(String($0.number), note: $0.title) }
        case CompletionDomain.playlists:
            return playlists.map { CompletionItem($0, note: "") }
        default:
            return episodes.compactMap { entry in
                var status = entry.status
                if case .downloading = status, let progress = live[entry.id] { status = .downloading(progress) }
                guard offers[domain]?(status) ?? true else { return nil }
                let text = status.text
                return CompletionItem(entry.word, note: entry.title + (text.isEmpty ? "" : " (\(text))"))
            }
        }
    }
}

/// What the interactive shell shares between its command loop, the download event
/// printer and the line editor's completion: all behind mutexes.
final class TerminalState: Sendable {
    private struct Running {
        var label: DownloadLabel
        var progress: DownloadProgress?
    }

    private struct State {
        var editor: LineEditor?
        var snapshot = CompletionSnapshot()
        var running: [DownloadID: Running] = [:]
        var command: Task<CommandOutcome, Never>?
        /// A refresh of the snapshot and prompt is due (see ``scheduleRefresh``).
        var refreshPending = false
        /// The words of the question being asked, read again at each refresh.
        var liveQuestion: (@Sendable () async -> String?)?
        /// The question was withdrawn because its words became nil.
        var questionWithdrawn = false
    }

    /// How often download events may refresh the snapshot and the prompt: `get all`
    /// of 5 000 episodes queues 5 000 downloads at once, and a refresh reads every
    /// episode's status.
    static let refreshInterval: Duration = .milliseconds(250)

    private let state = Mutex(State())

    /// How many of the loaded podcast's episodes (the newest) Tab offers.
    static let completionLimit = 2000

    /// The editor while the interactive shell runs; nil in scripts.
    var editor: LineEditor? {
        get { state.withLock { $0.editor } }
        set { state.withLock { $0.editor = newValue } }
    }

    /// The command running in the foreground, which Ctrl-C cancels.
    var command: Task<CommandOutcome, Never>? {
        get { state.withLock { $0.command } }
        set { state.withLock { $0.command = newValue } }
    }

    /// The question being asked at the prompt (``CommandContext/answer``): a
    /// refresh reads its words again, and withdraws it when they are nil.
    var liveQuestion: (@Sendable () async -> String?)? {
        get { state.withLock { $0.liveQuestion } }
        set {
            state.withLock {
                $0.liveQuestion = newValue
                if newValue != nil { $0.questionWithdrawn = false }
            }
        }
    }

    /// Whether the last question was withdrawn (its words became nil).
    var questionWithdrawn: Bool { state.withLock { $0.questionWithdrawn } }

    /// What each command's selector offers, from the commands' declarations.
    private let offers: [String: EpisodeFilter]

    init(offers: [String: EpisodeFilter] = [:]) {
        self.offers = offers
    }

    /// The items Tab offers for a domain, with current progress.
    func completionItems(_ domain: String) -> [CompletionItem] {
        let (snapshot, live) = state.withLock { state in
            (state.snapshot, state.running.compactMapValues(\.progress))
        }
        return snapshot.items(domain, live: live, offers: offers)
    }

    /// Re-reads the episodes and their statuses for completion.
    func refreshSnapshot(_ session: Session) async {
        var entries: [CompletionSnapshot.EpisodeEntry] = []
        if let podcast = await session.podcast {
            // Tab offers the newest episodes: a subscription of 200 000 is not read
            // through after every command.
            let offered = Array(1...max(1, min(podcast.episodes.count, Self.completionLimit)))
            let statuses = await session.statuses(of: offered)
            for (index, episode) in zip(podcast.episodes.indices, podcast.episodes.prefix(offered.count)) {
                entries.append(
                    .init(
                        number: index + 1,
                        id: DownloadID(episode: episode.id),
                        title: SafeText.line(episode.title),
                        status: statuses[episode.id] ?? .none
                    )
                )
            }
        } else {
            // No podcast loaded: the downloads `downloads` lists by P:E, which
            // `pause`, `resume` and `cancel` take from any shell.
            let listed = await session.services.downloads.listedDownloads().filter { $0.name.subject != nil }
            for download in listed.prefix(Self.completionLimit) {
                entries.append(
                    .init(
                        word: download.label.number,
                        id: download.view.request.id,
                        title: SafeText.line(download.label.title),
                        status: download.status
                    )
                )
            }
        }
        let results = await session.searchResults.map { SafeText.line($0.title) }
        let tracks = await session.tracks.map { SafeText.line($0.title) }
        let subscriptions = await session.subscriptionTitles()
        let playlists = await session.playlistNames()
        state.withLock {
            $0.snapshot = CompletionSnapshot(
                episodes: entries,
                searchResults: results,
                tracks: tracks,
                subscriptions: subscriptions.map {
                    CompletionSnapshot.SubscriptionEntry(number: $0.number, title: $0.title)
                },
                playlists: playlists
            )
        }
    }

    /// A download event in the interactive shell: progress goes to the status area,
    /// news above the prompt (wrapped to the width), and the prompt's download count
    /// follows.
    func report(_ event: DownloadEvent, label: DownloadLabel, to editor: LineEditor, session: Session) async {
        /// A download joined or left the active ones: prompt and completion follow.
        var countChanged = false
        state.withLock { state in
            switch event {
            case .started(let id, _):
                state.running[id] = Running(label: label, progress: state.running[id]?.progress)
            case .progress(let id, let progress):
                state.running[id] = Running(label: label, progress: progress)
            case .completed(let id, _, _), .failed(let id, _), .paused(let id, _, _), .cancelled(let id):
                state.running[id] = nil
                countChanged = true
            case .queued, .restarted, .retrying:
                break
            }
        }
        let columns = TerminalSize.columns()
        if let line = DownloadReporter.message(for: event, label: label) {
            editor.post(TextLayout.wrap(line, toWidth: columns).split(separator: "\n").map(String.init))
        }
        // By number, so that lines keep their places as they redraw.
        let entries = state.withLock { state in
            state.running.values.sorted {
                ($0.label.number.count, $0.label.number) < ($1.label.number.count, $1.label.number)
            }
        }.map { StatusArea.Entry(tag: $0.label.number, title: $0.label.title, progress: $0.progress?.reading) }
        editor.setStatus(StatusArea.lines(entries, width: columns))
        if case .queued = event { countChanged = true }
        if countChanged { scheduleRefresh(session, editor: editor) }
    }

    /// Refreshes completion's snapshot and the prompt's download count once, a
    /// moment from now, for however many events ask meanwhile: events are
    /// coalesced to at most a few refreshes a second, and an idle shell does none.
    private func scheduleRefresh(_ session: Session, editor: LineEditor) {
        let start = state.withLock { state -> Bool in
            guard !state.refreshPending else { return false }
            state.refreshPending = true
            return true
        }
        guard start else { return }
        Task {
            try? await Task.sleep(for: Self.refreshInterval)
            state.withLock { $0.refreshPending = false }
            await refreshSnapshot(session)
            editor.setPrompt(await Shell.prompt(session))
            if let question = liveQuestion {
                if let words = await question() {
                    editor.updateQuestion(words)
                } else {
                    state.withLock { $0.questionWithdrawn = true }
                    editor.stop()
                }
            }
        }
    }
}
