import Downloads
import FeedKit
import FeedServices
import PlainText
import ShellKit

extension Command {
    static let selectorDetails = """
        N is an episode number; 2-4, 1,3 and all select several. P:E is episode E of subscription P (the \
        numbers 'podcasts' and 'episodes' show), from any shell with no podcast loaded; P:2-4 and P:all too. \
        t2, t1-3 and tall select songs of the 'tracks' list.
        """

    /// The name of the download commands' selector argument, as synopses show it.
    static let selectorName = "N|N-M|N,M|all|P:E|tN"

    /// The selector argument of the download commands, completed with the episodes
    /// (and songs) that `verb` can act on.
    static func selectorArgument(_ verb: String, optional: Bool = false) -> CommandArgument<Selector> {
        // `get` downloads a smart playlist too (`get playlist NAME`).
        let playlists = verb == "get"
        return CommandArgument(
            selectorName + (playlists ? "|playlist NAME" : ""),
            forms: playlists ? Selector.Forms.downloads.union(.playlist) : .downloads,
            noun: "episode",
            optional: optional,
            completion: .selector(verb)
        )
    }

    /// What a command did to one download.
    typealias Outcome = TargetOutcome

    /// What a download command was asked to act on: the targets, and whether they
    /// were named as `all` (summarised, and `cancel all` asks first).
    struct Selected: Sendable {
        let targets: [DownloadTarget]
        let all: Bool
    }

    /// A command that acts on the selected downloads together and says what it did
    /// to each: a line each for a few, counts for many or `all`; JSON always has
    /// them all.
    ///
    /// With `everyDownloadWhenNoneLoaded` (`pause`, `resume`, `cancel`), `all`
    /// with no podcast loaded names every download `downloads` lists that the
    /// command `offers` to act on, of whichever podcast, here or in the background
    /// feedsh.
    static func perDownload(
        _ spec: CommandSpec,
        offers: @escaping EpisodeFilter,
        everyDownloadWhenNoneLoaded: Bool = false,
        act: @escaping @Sendable (Selected, ParsedArguments, CommandContext) async -> [Outcome]
    ) -> Command {
        var spec = spec
        let selector = selectorArgument(spec.name)
        spec.arguments = [selector.spec]
        spec.details = selectorDetails + " " + spec.details
        if everyDownloadWhenNoneLoaded {
            spec.details += " With no podcast loaded, 'all' is every download 'downloads' lists, of any podcast."
        }
        let verb = spec.name
        return Command(spec, offers: offers) { arguments, context throws(ShellError) in
            let chosen = try arguments.required(selector)
            let session = context.session
            if everyDownloadWhenNoneLoaded, chosen.scope == .loaded, chosen.isAll, await session.podcast == nil {
                let targets = await session.services.downloads.listedDownloads().filter { offers($0.status) }.map {
                    DownloadTarget(name: $0.name.byAddress, request: $0.view.request)
                }
                guard !targets.isEmpty else {
                    return TargetOutcomes(rows: [], summarised: true, empty: .noDownloadsTo(verb: verb))
                }
                let outcomes = await act(Selected(targets: targets, all: true), arguments, context)
                return await report(targets, outcomes, summarise: true, context)
            }
            let targets = try await session.targets(chosen, verb: verb, synopsis: arguments.synopsis)
            guard !targets.isEmpty else {
                // Only `new` and a playlist select nothing without failing: a
                // cron line runs daily.
                if case .playlist(let name) = chosen.scope {
                    return TargetOutcomes(rows: [], summarised: false, empty: .emptyPlaylist(name))
                }
                return TargetOutcomes(rows: [], summarised: false, empty: .noNewEpisodes)
            }
            let outcomes = await act(Selected(targets: targets, all: chosen.isAll), arguments, context)
            return await report(targets, outcomes, summarise: chosen.isAll, context)
        }
    }

    /// What a command did to each target, with each one's status after when the
    /// result goes out as JSON.
    static func report(
        _ targets: [DownloadTarget],
        _ outcomes: [Outcome],
        summarise: Bool,
        _ context: CommandContext
    ) async -> TargetOutcomes {
        var rows: [TargetOutcomes.Row] = []
        for (target, outcome) in zip(targets, outcomes) {
            let status = context.json ? await context.services.downloads.status(of: target.request) : nil
            rows.append(.init(label: target.label, id: target.request.id, outcome: outcome, status: status))
        }
        return TargetOutcomes(rows: rows, summarised: summarise)
    }

    /// Says another process owns a download, or nil when none does.
    static func ownedElsewhere(_ target: DownloadTarget, _ context: CommandContext) -> Outcome? {
        guard let holder = context.services.downloads.owner(of: target.request) else { return nil }
        return elsewhere(target, pid: holder)
    }

    /// Another process (`pid`) is downloading it.
    static func elsewhere(_ target: DownloadTarget, pid: Int32?) -> Outcome {
        .elsewhere(target.label.number, pid: pid)
    }

    /// What `startAll` does with one target.
    enum StartDecision {
        /// Leave it, saying why.
        case skip(Outcome)
        /// Start it; `as` says it instead of "downloading N: Title" (`resuming 3 at 41.2%`).
        case start(as: Outcome? = nil)
    }

    /// Starts the downloads `decide` lets start, in one step, and says what happened
    /// to each target.
    static func startAll(
        _ targets: [DownloadTarget],
        _ context: CommandContext,
        decide: (DownloadTarget) async -> StartDecision
    ) async -> [Outcome] {
        // The max-concurrent setting, before anything starts.
        await context.services.downloads.applySettings()
        var outcomes: [Outcome?] = []
        var starting: [(index: Int, said: Outcome?)] = []
        for (index, target) in targets.enumerated() {
            switch await decide(target) {
            case .skip(let outcome):
                outcomes.append(outcome)
            case .start(let said):
                if let outcome = ownedElsewhere(target, context) {
                    outcomes.append(outcome)
                } else {
                    outcomes.append(nil)
                    starting.append((index, said))
                }
            }
        }
        let results = await context.services.downloads.start(starting.map { targets[$0.index].request })
        for ((index, said), result) in zip(starting, results) {
            let label = targets[index].label
            outcomes[index] =
                switch (result, said) {
                case (.started, let said?), (.queued, let said?): said
                case (.started, nil): .downloading(label)
                case (.queued, nil): .queued(label)
                case (.alreadyActive, _): .alreadyDownloading(label.number)
                }
        }
        return outcomes.map { $0! }
    }

    /// Starts downloading the selected episodes or songs: `get`, and `preview`.
    static func startDownloads(_ targets: [DownloadTarget], _ context: CommandContext) async -> [Outcome] {
        await startAll(targets, context) { target in
            let number = target.label.number
            return switch await context.services.downloads.status(of: target.request) {
            case .downloaded: .skip(.alreadyDownloaded(number))
            case .queued, .downloading: .skip(.alreadyDownloading(number))
            case .none, .paused, .failed: .start()
            }
        }
    }
}
