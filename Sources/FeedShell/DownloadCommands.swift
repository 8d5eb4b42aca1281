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

    /// A command that acts on each selected download and prints one line for each.
    private static func perDownload(
        name: String,
        summary: String,
        details: String,
        act: @escaping @Sendable (DownloadTarget, CommandContext) async -> String
    ) -> Command {
        Command(
            name: name,
            synopsis: "\(name) N|N-M|N,M|all|tN",
            summary: summary,
            details: "\(selectorDetails) \(details)"
        ) { arguments, context throws(ShellError) in
            let targets = try await selection(&arguments, context, name)
            var lines: [String] = []
            var results: [JSONValue] = []
            for target in targets {
                let message = await act(target, context)
                lines.append(message)
                guard context.console.json else { continue }
                results.append(
                    .object([
                        "number": .string(target.number), "id": .string(target.request.id),
                        "message": .string(message),
                        "status": JSONRender.status(await context.session.status(of: target.request)),
                    ])
                )
            }
            context.output(lines.joined(separator: "\n"), json: .array(results))
            return .proceed
        }
    }

    static let get = perDownload(
        name: "get",
        summary: "download episodes in the background",
        details: """
            Returns at once; progress and results print as they come. At most
            --max-concurrent downloads run at a time, the rest are queued. A .part file
            left by an earlier run is continued, not started again.
            """
    ) { target, context in
        let number = target.number
        switch await context.session.status(of: target.request) {
        case .downloaded: return "\(number) is already downloaded"
        case .queued, .downloading: return "\(number) is already downloading"
        case .none, .paused, .failed: break
        }
        switch await context.session.downloads.start(target.request) {
        case .started: return "downloading \(number): \(target.title)"
        case .queued: return "queued \(number): \(target.title)"
        case .alreadyActive: return "\(number) is already downloading"
        }
    }

    static let pause = perDownload(
        name: "pause",
        summary: "pause downloads, keeping what has arrived",
        details: "The .part file stays; 'resume' continues it, now or in a later run."
    ) { target, context in
        let number = target.number
        return switch await context.session.downloads.pause(target.request.id) {
        case .paused(let bytes, let total)?: "paused \(number) at \(EpisodeStatus.precisePercent(bytes, total))"
        case .completed?: "\(number) finished before it could be paused"
        default: "\(number) is not downloading"
        }
    }

    static let resume = perDownload(
        name: "resume",
        summary: "continue paused or failed downloads",
        details: "Continues from the bytes on disk with a Range request."
    ) { target, context in
        let number = target.number
        let message: String
        switch await context.session.status(of: target.request) {
        case .paused(let bytes, let total):
            message = "resuming \(number) at \(EpisodeStatus.precisePercent(bytes, total))"
        case .failed: message = "retrying \(number)"
        case .queued, .downloading: return "\(number) is already downloading"
        case .downloaded: return "\(number) is already downloaded"
        case .none: return "\(number) is not paused (use 'get \(number)')"
        }
        await context.session.downloads.start(target.request)
        return message
    }

    static let cancel = perDownload(
        name: "cancel",
        summary: "stop downloads and delete what they saved",
        details: "Removes the .part file and its metadata; a finished file is kept."
    ) { target, context in
        let engine = context.session.downloads
        // The engine knows this session's downloads; a .part from an earlier run is
        // only on disk.
        if await engine.cancel(target.request.id) || engine.removePartial(target.request) {
            return "cancelled \(target.number)"
        }
        return "\(target.number) is not downloading"
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
        details: "Without an argument, waits for every download. Fails when one of them failed."
    ) { arguments, context throws(ShellError) in
        var ids: [String]? = nil
        if !arguments.isEmpty {
            ids = try await selection(&arguments, context, "wait").map(\.request.id)
        }
        try arguments.finish()
        await context.session.downloads.waitUntilIdle(ids)
        if Task.isCancelled {
            // After the ^C the terminal echoed.
            context.console.printError("\nstopped waiting; the downloads go on")
            return .proceed
        }
        var lines: [String] = []
        var results: [JSONValue] = []
        var failures = 0
        for (request, state) in await context.session.downloads.all() where ids?.contains(request.id) ?? true {
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
        if !lines.isEmpty || context.console.json {
            context.output(lines.joined(separator: "\n"), json: .array(results))
        }
        if failures > 0 {
            throw .other("\(failures) \(failures == 1 ? "download" : "downloads") failed")
        }
        return .proceed
    }
}
