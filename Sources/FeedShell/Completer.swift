import Foundation
import LineEditor

/// What completion knows about the session, refreshed after each command and each
/// download event, so that Tab answers at once and never touches the network.
public struct CompletionSnapshot: Sendable, Equatable {
    public struct EpisodeEntry: Sendable, Equatable {
        let number: Int
        let title: String
        let status: EpisodeStatus
    }

    var episodes: [EpisodeEntry] = []
    /// Titles of the last search's results, for `open`.
    var searchResults: [String] = []
    /// Titles of the last `tracks` list, for `preview`.
    var tracks: [String] = []

    public init() {}

    init(episodes: [EpisodeEntry], searchResults: [String] = [], tracks: [String] = []) {
        self.episodes = episodes
        self.searchResults = searchResults
        self.tracks = tracks
    }
}

/// Tab completion: command names, their flags, and the episode numbers that make
/// sense for each command, listed with their titles.
struct Completer: Sendable {
    let registry: CommandRegistry

    func complete(_ textBeforeCursor: String, snapshot: CompletionSnapshot) -> LineEditor.Completion {
        // Only the statement being typed matters.
        let statement = textBeforeCursor.split(separator: ";", omittingEmptySubsequences: false).last ?? ""
        var words = statement.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let endsWithSpace = statement.last == " " || statement.last == "\t"
        let partial = endsWithSpace || words.isEmpty ? "" : words.removeLast()
        let replacing = partial.unicodeScalars.count

        guard let commandName = words.first else {
            let names = registry.commands.flatMap { [$0.name] + $0.aliases }.filter { $0.hasPrefix(partial) }
            return .init(replacing: replacing, candidates: names.sorted().map { .init($0) })
        }
        guard let command = registry.command(named: commandName) else {
            return .init(replacing: replacing, candidates: [])
        }
        if partial.hasPrefix("-") {
            let flags = command.flags.filter { $0.hasPrefix(partial) && !words.contains($0) }
            return .init(replacing: replacing, candidates: flags.map { .init($0) })
        }
        if (command.name == "open" || command.name == "preview") && words.count == 1 {
            let titles = command.name == "open" ? snapshot.searchResults : snapshot.tracks
            let numbered = titles.enumerated().map { (String($0.offset + 1), $0.element) }
            return .init(
                replacing: replacing,
                candidates: numbered.filter { $0.0.hasPrefix(partial) }.map { .init($0.0, note: $0.1) }
            )
        }
        if command.name == "source" && words.count == 1 {
            return .init(replacing: replacing, candidates: Self.paths(completing: partial))
        }
        if command.name == "met" && words.count == 1 {
            let verbs = ["search", "object", "image"].filter { $0.hasPrefix(partial) }
            return .init(replacing: replacing, candidates: verbs.map { .init($0) })
        }
        if command.name == "help" && words.count == 1 {
            let names = registry.commands.map(\.name).filter { $0.hasPrefix(partial) }
            return .init(replacing: replacing, candidates: names.map { .init($0) })
        }
        guard let wanted = Self.episodeFilter[command.name], words.count == 1 else {
            return .init(replacing: replacing, candidates: [])
        }
        let matches = snapshot.episodes.filter { wanted($0.status) && String($0.number).hasPrefix(partial) }
        let candidates = matches.map { entry -> LineEditor.Completion.Candidate in
            let status = entry.status.text
            return .init(String(entry.number), note: entry.title + (status.isEmpty ? "" : " (\(status))"))
        }
        return .init(replacing: replacing, candidates: candidates)
    }

    /// Files and folders whose path starts with `partial` (folders end in `/`).
    static func paths(completing partial: String) -> [LineEditor.Completion.Candidate] {
        let slash = partial.lastIndex(of: "/")
        let folder = slash.map { String(partial[...$0]) } ?? ""
        let prefix = slash.map { String(partial[partial.index(after: $0)...]) } ?? partial
        let expanded = (folder.isEmpty ? "." : (folder as NSString).expandingTildeInPath)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: expanded) else { return [] }
        return names.filter { $0.hasPrefix(prefix) && (prefix.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map {
            name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: expanded + "/" + name, isDirectory: &isDirectory)
            return .init(folder + name + (isDirectory.boolValue ? "/" : ""), isFinal: !isDirectory.boolValue)
        }
    }

    /// Which episodes each command can act on.
    static let episodeFilter: [String: @Sendable (EpisodeStatus) -> Bool] = [
        "show": { _ in true },
        "get": { status in
            switch status {
            case .none, .paused, .failed: true
            default: false
            }
        },
        "pause": { status in
            switch status {
            case .queued, .downloading: true
            default: false
            }
        },
        "resume": { status in
            switch status {
            case .paused, .failed: true
            default: false
            }
        },
        "cancel": { status in
            switch status {
            case .queued, .downloading, .paused, .failed: true
            default: false
            }
        },
        "wait": { status in
            switch status {
            case .queued, .downloading: true
            default: false
            }
        },
    ]
}
