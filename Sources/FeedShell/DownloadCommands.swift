import Downloads
import FeedKit
import Foundation

extension Command {
    private static let selectorDetails =
        "N is an episode number; 2-4, 1,3 and all select several. t2, t1-3 and tall select songs of the 'tracks' list."

    /// The downloads an argument selects, or a usage error naming the range.
    private static func selection(
        _ arguments: inout Arguments,
        _ context: CommandContext,
        _ verb: String
    ) async throws(ShellError) -> [DownloadTarget] {
        guard let text = try arguments.positional() else {
            if let podcast = await context.session.podcast {
                arguments.synopsis = "\(verb) N|N-M|N,M|all (1-\(podcast.episodes.count)), or tN for songs"
            }
            throw .usage(synopsis: arguments.synopsis)
        }
        try arguments.finish()
        return try await context.session.targets(text, verb: verb)
    }

    /// What a command did to one download: a kind for summaries (`queued`) and the
    /// line that says it (`queued 4: Title`).
    struct Outcome: Sendable {
        let kind: String
        let message: String
    }

    /// Selections longer than this are summarised (`9997 queued, 3 downloading`)
    /// instead of a line each.
    static let listLimit = 12

    /// A command that acts on the selected downloads together and says what it did
    /// to each: a line each for a few, counts for many; JSON always has them all.
    private static func perDownload(
        name: String,
        summary: String,
        details: String,
        act: @escaping @Sendable ([DownloadTarget], CommandContext) async -> [Outcome]
    ) -> Command {
        Command(
            name: name,
            synopsis: "\(name) N|N-M|N,M|all|tN",
            summary: summary,
            details: "\(selectorDetails) \(details)"
        ) { arguments, context throws(ShellError) in
            let targets = try await selection(&arguments, context, name)
            let outcomes = await act(targets, context)
            var results: [JSONValue] = []
            if context.console.json {
                for (target, outcome) in zip(targets, outcomes) {
                    results.append(
                        .object([
                            "number": .string(target.number), "id": .string(target.request.id),
                            "message": .string(outcome.message),
                            "status": JSONRender.status(await context.session.status(of: target.request)),
                        ])
                    )
                }
            }
            let text =
                outcomes.count <= listLimit
                ? outcomes.map(\.message).joined(separator: "\n") : Self.summary(of: outcomes)
            context.output(text, json: .array(results))
            return .proceed
        }
    }

    /// `3 downloading, 9997 queued`: the kinds in the order they first came.
    static func summary(of outcomes: [Outcome]) -> String {
        var counts: [(kind: String, count: Int)] = []
        var index: [String: Int] = [:]
        for outcome in outcomes {
            if let at = index[outcome.kind] {
                counts[at].count += 1
            } else {
                index[outcome.kind] = counts.count
                counts.append((outcome.kind, 1))
            }
        }
        return counts.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
    }

    /// Says another process owns a download, or nil when none does.
    private static func ownedElsewhere(_ target: DownloadTarget, _ context: CommandContext) -> Outcome? {
        guard let holder = context.session.downloads.owner(of: target.request) else { return nil }
        let who = holder.map { "pid \($0)" } ?? "another process"
        return Outcome(
            kind: "being downloaded elsewhere",
            message: "\(target.number) is being downloaded by feedsh (\(who))"
        )
    }

    /// What `startAll` does with one target.
    enum StartDecision {
        /// Leave it, saying why.
        case skip(Outcome)
        /// Start it; `message` replaces "downloading N: Title" (`resuming 3 at 41.2%`).
        case start(message: String? = nil)
    }

    /// Starts the downloads `decide` lets start, in one step, and says what happened
    /// to each target.
    private static func startAll(
        _ targets: [DownloadTarget],
        _ context: CommandContext,
        decide: (DownloadTarget) async -> StartDecision
    ) async -> [Outcome] {
        var outcomes: [Outcome?] = []
        var starting: [(index: Int, message: String?)] = []
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
            let target = targets[index]
            outcomes[index] =
                switch (result, message) {
                case (.started, let message?), (.queued, let message?): Outcome(kind: "resumed", message: message)
                case (.started, nil):
                    Outcome(kind: "downloading", message: "downloading \(target.number): \(target.title)")
                case (.queued, nil): Outcome(kind: "queued", message: "queued \(target.number): \(target.title)")
                case (.alreadyActive, _):
                    Outcome(kind: "already downloading", message: "\(target.number) is already downloading")
                }
        }
        return outcomes.map { $0! }
    }

    static let get = perDownload(
        name: "get",
        summary: "download episodes in the background",
        details: """
            Returns at once; progress and results print as they come. At most
            --max-concurrent downloads run at a time, the rest are queued. A .part file
            left by an earlier run is continued, not started again.
            """
    ) { targets, context in
        await startAll(targets, context) { target in
            let number = target.number
            return switch await context.session.status(of: target.request) {
            case .downloaded: .skip(Outcome(kind: "already downloaded", message: "\(number) is already downloaded"))
            case .queued, .downloading:
                .skip(Outcome(kind: "already downloading", message: "\(number) is already downloading"))
            case .none, .paused, .failed: .start()
            }
        }
    }

    static let pause = perDownload(
        name: "pause",
        summary: "pause downloads, keeping what has arrived",
        details: "The .part file stays; 'resume' continues it, now or in a later run."
    ) { targets, context in
        var outcomes: [Outcome] = []
        for target in targets {
            let number = target.number
            let outcome: Outcome =
                switch await context.session.downloads.pause(target.request.id) {
                case .paused(let bytes, let total)?:
                    Outcome(
                        kind: "paused",
                        message: "paused \(number) at \(EpisodeStatus.precisePercent(bytes, total))"
                    )
                case .completed?:
                    Outcome(kind: "finished first", message: "\(number) finished before it could be paused")
                default:
                    ownedElsewhere(target, context)
                        ?? Outcome(kind: "not downloading", message: "\(number) is not downloading")
                }
            outcomes.append(outcome)
        }
        return outcomes
    }

    static let resume = perDownload(
        name: "resume",
        summary: "continue paused or failed downloads",
        details: "Continues from the bytes on disk with a Range request."
    ) { targets, context in
        await startAll(targets, context) { target in
            let number = target.number
            return switch await context.session.status(of: target.request) {
            case .paused(let bytes, let total):
                .start(message: "resuming \(number) at \(EpisodeStatus.precisePercent(bytes, total))")
            case .failed: .start(message: "retrying \(number)")
            case .queued, .downloading:
                .skip(Outcome(kind: "already downloading", message: "\(number) is already downloading"))
            case .downloaded: .skip(Outcome(kind: "already downloaded", message: "\(number) is already downloaded"))
            case .none: .skip(Outcome(kind: "not paused", message: "\(number) is not paused (use 'get \(number)')"))
            }
        }
    }

    static let cancel = perDownload(
        name: "cancel",
        summary: "stop downloads and delete what they saved",
        details: "Removes the .part file and its metadata; a finished file is kept."
    ) { targets, context in
        let engine = context.session.downloads
        // Queued ones go first inside the engine, so stopping the running ones starts
        // none of them.
        let cancelled = await engine.cancel(targets.map(\.request.id))
        var outcomes: [Outcome] = []
        for target in targets {
            if cancelled[target.request.id] == true {
                outcomes.append(Outcome(kind: "cancelled", message: "cancelled \(target.number)"))
                continue
            }
            // A .part from an earlier run is only on disk; one another process owns
            // is left alone.
            do throws(DownloadError) {
                if try engine.removePartial(target.request) {
                    outcomes.append(Outcome(kind: "cancelled", message: "cancelled \(target.number)"))
                } else {
                    outcomes.append(Outcome(kind: "not downloading", message: "\(target.number) is not downloading"))
                }
            } catch {
                outcomes.append(
                    ownedElsewhere(target, context)
                        ?? Outcome(kind: "not cancelled", message: "\(target.number): \(error.description)")
                )
            }
        }
        return outcomes
    }

    static let downloads = Command(
        name: "downloads",
        aliases: ["jobs"],
        synopsis: "downloads",
        summary: "list this session's downloads",
        details: "Every download started in this session, with its state and progress."
    ) { arguments, context throws(ShellError) in
        try arguments.finish()
        let all = await context.session.downloads.all()
        guard !all.isEmpty else {
            context.output("no downloads", json: .array([]))
            return .proceed
        }
        var rows: [[String]] = []
        var results: [JSONValue] = []
        for (request, state) in all {
            let detail: String =
                switch state {
                case .cancelled: "cancelled"
                case .running(let progress?) where progress.bytes > 0: progressText(progress)
                default: EpisodeStatus(engine: state, disk: .absent).text
                }
            let label = await context.session.label(for: request.id)
            rows.append([TerminalText.line(detail), label])
            results.append(
                .object([
                    "id": .string(request.id), "label": .string(label), "path": .string(request.file.final.path),
                    "status": JSONRender.state(state),
                ])
            )
        }
        context.outputTable(header: ["Status", "Episode"], rows: rows, rightAligned: [], json: .array(results))
        return .proceed
    }

    static let wait = Command(
        name: "wait",
        synopsis: "wait [N|N-M|N,M|all|tN]",
        summary: "wait for downloads to finish and report each",
        details: """
            Without an argument, waits for every download of this session. A download
            that another feedsh owns is waited for until that process lets it go, and
            reported from what is on disk then. Fails when one of them failed.
            """
    ) { arguments, context throws(ShellError) in
        var targets: [DownloadTarget]? = nil
        if !arguments.isEmpty {
            targets = try await selection(&arguments, context, "wait")
        }
        try arguments.finish()
        let engine = context.session.downloads
        let ids = targets.map { Set($0.map(\.request.id)) }
        var elsewhere: [DownloadTarget] = []
        for target in targets ?? [] where engine.owner(of: target.request) != nil {
            if await engine.state(of: target.request.id)?.isActive != true { elsewhere.append(target) }
        }
        if !elsewhere.isEmpty {
            let numbers = elsewhere.map(\.number).joined(separator: ", ")
            context.console.printError("waiting for \(numbers), being downloaded by another feedsh")
        }
        await engine.waitUntilIdle(ids.map(Array.init))
        for target in elsewhere {
            while !Task.isCancelled, engine.owner(of: target.request) != nil {
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        if Task.isCancelled {
            // After the ^C the terminal echoed.
            context.console.printError("\nstopped waiting; the downloads go on")
            return .proceed
        }
        var lines: [String] = []
        var results: [JSONValue] = []
        var failures = 0
        for (request, state) in await engine.all() where ids?.contains(request.id) ?? true {
            let label = await context.session.label(for: request.id)
            if state.isActive { continue }
            results.append(
                .object(["id": .string(request.id), "label": .string(label), "status": JSONRender.state(state)])
            )
            // At the prompt, completions and failures were just announced above it.
            switch state {
            case .completed(let bytes):
                if !context.isInteractive { lines.append("downloaded \(label) (\(ByteCountText.format(Int(bytes))))") }
            case .failed(let error):
                failures += 1
                if !context.isInteractive { lines.append("failed \(label): \(TerminalText.line(error.description))") }
            case .paused(let bytes, let total):
                lines.append("paused \(label) at \(EpisodeStatus.precisePercent(bytes, total))")
            case .cancelled:
                lines.append("cancelled \(label)")
            case .queued, .running:
                break
            }
        }
        // What the other process left on disk.
        for target in elsewhere {
            let label = await context.session.label(for: target.request.id)
            let status = await context.session.status(of: target.request)
            results.append(
                .object([
                    "id": .string(target.request.id), "label": .string(label), "status": JSONRender.status(status),
                ])
            )
            switch status {
            case .downloaded(let bytes): lines.append("downloaded \(label) (\(ByteCountText.format(Int(bytes))))")
            case .paused(let bytes, let total):
                lines.append("paused \(label) at \(EpisodeStatus.precisePercent(bytes, total))")
            default: lines.append("\(label) was not finished by the other feedsh")
            }
        }
        if !lines.isEmpty || context.console.json {
            context.output(lines.joined(separator: "\n"), json: .array(results))
        }
        if failures > 0 {
            throw .other("\(failures) \(failures == 1 ? "download" : "downloads") failed")
        }
        return .proceed
    }
}
