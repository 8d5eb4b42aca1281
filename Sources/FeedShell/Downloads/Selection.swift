import Downloads
import FeedKit
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
        CommandArgument(
            selectorName,
            forms: .downloads,
            noun: "episode",
            optional: optional,
            completion: .selector(verb)
        )
    }

    /// What a command did to one download: a kind for summaries (`queued`) and the
    /// line that says it (`queued 4: Title`).
    struct Outcome: Sendable {
        let kind: Kind
        let message: SafeLine

        /// What happened, as summaries count it (`3 queued`).
        enum Kind: String, Sendable {
            case alreadyDownloaded = "already downloaded"
            case alreadyDownloading = "already downloading"
            case elsewhere = "being downloaded elsewhere"
            case cancelled
            case deleted
            case downloading
            case finished
            case finishedFirst = "finished first"
            case kept = "kept from an earlier session"
            case notCancelled = "not cancelled"
            case notDownloaded = "not downloaded"
            case notDownloading = "not downloading"
            case notPaused = "not paused"
            case paused
            case queued
            case resumed
        }
    }

    /// Selections longer than this, and `all`, are summarised (`9997 queued,
    /// 3 downloading`) instead of a line each.
    static let listLimit = 12

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
                let targets = await session.listedDownloads().filter { offers($0.status) }.map {
                    DownloadTarget(label: $0.label.byAddress, request: $0.view.request)
                }
                guard !targets.isEmpty else {
                    context.output("no downloads to \(verb)", json: .array([]))
                    return .proceed
                }
                let outcomes = await act(Selected(targets: targets, all: true), arguments, context)
                await report(targets, outcomes, summarise: true, context)
                return .proceed
            }
            let targets = try await session.targets(chosen, verb: verb, synopsis: arguments.synopsis)
            guard !targets.isEmpty else {
                // Only `new` selects nothing without failing: a cron line runs daily.
                context.output("no new episodes", json: .array([]))
                return .proceed
            }
            let outcomes = await act(Selected(targets: targets, all: chosen.isAll), arguments, context)
            await report(targets, outcomes, summarise: chosen.isAll, context)
            return .proceed
        }
    }

    /// Says what a command did to each target: a line each, or counts when there are
    /// many or `summarise` (for `all`); JSON always has them all.
    static func report(
        _ targets: [DownloadTarget],
        _ outcomes: [Outcome],
        summarise: Bool,
        _ context: CommandContext
    ) async {
        var results: [JSONValue] = []
        if context.console.json {
            for (target, outcome) in zip(targets, outcomes) {
                results.append(
                    .object([
                        "number": .string(target.label.number), "id": .string(target.request.id),
                        "message": .string(outcome.message.description),
                        "status": JSONRender.status(await context.session.status(of: target.request)),
                    ])
                )
            }
        }
        let counts = outcomes.count > listLimit || (summarise && outcomes.count > 1)
        let text = counts ? Self.summary(of: outcomes) : SafeLine.lines(outcomes.map(\.message))
        context.output(text, json: .array(results))
    }

    /// `3 downloading, 9997 queued`: the kinds in the order they first came.
    static func summary(of outcomes: [Outcome]) -> String {
        var counts: [(kind: Outcome.Kind, count: Int)] = []
        var index: [Outcome.Kind: Int] = [:]
        for outcome in outcomes {
            if let at = index[outcome.kind] {
                counts[at].count += 1
            } else {
                index[outcome.kind] = counts.count
                counts.append((outcome.kind, 1))
            }
        }
        return counts.map { "\($0.count) \($0.kind.rawValue)" }.joined(separator: ", ")
    }

    /// Says another process owns a download, or nil when none does.
    static func ownedElsewhere(_ target: DownloadTarget, _ context: CommandContext) -> Outcome? {
        guard let holder = context.session.downloads.owner(of: target.request) else { return nil }
        return elsewhere(target, pid: holder)
    }

    /// `3 is being downloaded by feedsh (pid 123)`.
    static func elsewhere(_ target: DownloadTarget, pid: Int32?) -> Outcome {
        let who = pid.map { "pid \($0)" } ?? "another process"
        return Outcome(
            kind: .elsewhere,
            message: "\(target.label.number) is being downloaded by feedsh (\(who))"
        )
    }

    /// What `startAll` does with one target.
    enum StartDecision {
        /// Leave it, saying why.
        case skip(Outcome)
        /// Start it; `message` replaces "downloading N: Title" (`resuming 3 at 41.2%`).
        case start(message: SafeLine? = nil)
    }

    /// Starts the downloads `decide` lets start, in one step, and says what happened
    /// to each target.
    static func startAll(
        _ targets: [DownloadTarget],
        _ context: CommandContext,
        decide: (DownloadTarget) async -> StartDecision
    ) async -> [Outcome] {
        // The max-concurrent setting, before anything starts.
        await context.session.applySettings()
        var outcomes: [Outcome?] = []
        var starting: [(index: Int, message: SafeLine?)] = []
        for (index, target) in targets.enumerated() {
            switch await decide(target) {
            case .skip(let outcome):
                outcomes.append(outcome)
            case .start(let message):
                if let outcome = ownedElsewhere(target, context) {
                    outcomes.append(outcome)
                } else {
                    outcomes.append(nil)
                    starting.append((index, message))
                }
            }
        }
        let results = await context.session.downloads.start(starting.map { targets[$0.index].request })
        for ((index, message), result) in zip(starting, results) {
            let label = targets[index].label
            outcomes[index] =
                switch (result, message) {
                case (.started, let message?), (.queued, let message?): Outcome(kind: .resumed, message: message)
                case (.started, nil):
                    Outcome(kind: .downloading, message: "downloading \(label.number): \(label.title)")
                case (.queued, nil): Outcome(kind: .queued, message: "queued \(label.number): \(label.title)")
                case (.alreadyActive, _):
                    Outcome(kind: .alreadyDownloading, message: "\(label.number) is already downloading")
                }
        }
        return outcomes.map { $0! }
    }

    /// Starts downloading the selected episodes or songs: `get`, and `preview`.
    static func startDownloads(_ targets: [DownloadTarget], _ context: CommandContext) async -> [Outcome] {
        await startAll(targets, context) { target in
            let number = target.label.number
            return switch await context.session.status(of: target.request) {
            case .downloaded: .skip(Outcome(kind: .alreadyDownloaded, message: "\(number) is already downloaded"))
            case .queued, .downloading:
                .skip(Outcome(kind: .alreadyDownloading, message: "\(number) is already downloading"))
            case .none, .paused, .failed: .start()
            }
        }
    }
}
