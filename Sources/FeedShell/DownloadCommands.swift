import Downloads
import FeedKit
import Foundation

extension Command {
    private static let selectorDetails = "N is an episode number; 2-4, 1,3 and all select several."

    /// The episode numbers an argument selects, or a usage error naming the range.
    private static func selection(
        _ arguments: inout Arguments,
        _ context: CommandContext,
        _ verb: String
    ) async throws(ShellError) -> (Podcast, [Int]) {
        let podcast = try await context.session.requirePodcast()
        arguments.synopsis = "\(verb) N|N-M|N,M|all (1-\(podcast.episodes.count))"
        guard let text = try arguments.positional() else { throw .usage(synopsis: arguments.synopsis) }
        try arguments.finish()
        guard let numbers = EpisodeSelector.parse(text, count: podcast.episodes.count) else {
            throw .usage("no episode '\(TerminalText.line(text))'", synopsis: arguments.synopsis)
        }
        return (podcast, numbers)
    }

    /// A command that acts on each selected episode and prints one line for each.
    private static func perEpisode(
        name: String,
        summary: String,
        details: String,
        act: @escaping @Sendable (Podcast, Int, CommandContext) async -> String
    ) -> Command {
        Command(
            name: name,
            synopsis: "\(name) N|N-M|N,M|all",
            summary: summary,
            details: "\(selectorDetails) \(details)"
        ) { arguments, context throws(ShellError) in
            let (podcast, numbers) = try await selection(&arguments, context, name)
            var lines: [String] = []
            var results: [JSONValue] = []
            for number in numbers {
                let message = await act(podcast, number, context)
                lines.append(message)
                let episode = podcast.episodes[number - 1]
                results.append(
                    .object([
                        "number": .int(number), "id": .int(episode.id), "message": .string(message),
                        "status": JSONRender.status(await context.session.status(of: episode, in: podcast)),
                    ])
                )
            }
            context.output(lines.joined(separator: "\n"), json: .array(results))
            return .proceed
        }
    }

    static let get = perEpisode(
        name: "get",
        summary: "download episodes in the background",
        details: """
            Returns at once; progress and results print as they come. At most
            --max-concurrent downloads run at a time, the rest are queued. A .part file
            left by an earlier run is continued, not started again.
            """
    ) { podcast, number, context in
        let episode = podcast.episodes[number - 1]
        switch await context.session.status(of: episode, in: podcast) {
        case .downloaded: return "\(number) is already downloaded"
        case .queued, .downloading: return "\(number) is already downloading"
        case .none, .paused, .failed: break
        }
        let request = await context.session.downloadRequest(number: number, of: podcast)
        let title = TerminalText.line(episode.title)
        switch await context.session.downloads.start(request) {
        case .started: return "downloading \(number): \(title)"
        case .queued: return "queued \(number): \(title)"
        case .alreadyActive: return "\(number) is already downloading"
        }
    }

    static let pause = perEpisode(
        name: "pause",
        summary: "pause downloads, keeping what has arrived",
        details: "The .part file stays; 'resume' continues it, now or in a later run."
    ) { podcast, number, context in
        switch await context.session.downloads.pause(String(podcast.episodes[number - 1].id)) {
        case .paused(let bytes, let total)?: "paused \(number) at \(EpisodeStatus.precisePercent(bytes, total))"
        case .completed?: "\(number) finished before it could be paused"
        default: "\(number) is not downloading"
        }
    }

    static let resume = perEpisode(
        name: "resume",
        summary: "continue paused or failed downloads",
        details: "Continues from the bytes on disk with a Range request."
    ) { podcast, number, context in
        let status = await context.session.status(of: podcast.episodes[number - 1], in: podcast)
        let message: String
        switch status {
        case .paused(let bytes, let total):
            message = "resuming \(number) at \(EpisodeStatus.precisePercent(bytes, total))"
        case .failed: message = "retrying \(number)"
        case .queued, .downloading: return "\(number) is already downloading"
        case .downloaded: return "\(number) is already downloaded"
        case .none: return "\(number) is not paused (use 'get \(number)')"
        }
        await context.session.downloads.start(await context.session.downloadRequest(number: number, of: podcast))
        return message
    }

    static let cancel = perEpisode(
        name: "cancel",
        summary: "stop downloads and delete what they saved",
        details: "Removes the .part file and its metadata; a finished file is kept."
    ) { podcast, number, context in
        let request = await context.session.downloadRequest(number: number, of: podcast)
        let engine = context.session.downloads
        // The engine knows this session's downloads; a .part from an earlier run is
        // only on disk.
        if await engine.cancel(request.id) || engine.removePartial(request) {
            return "cancelled \(number)"
        }
        return "\(number) is not downloading"
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
        synopsis: "wait [N|N-M|N,M|all]",
        summary: "wait for downloads to finish and report each",
        details: "Without an argument, waits for every download. Fails when one of them failed."
    ) { arguments, context throws(ShellError) in
        var ids: [String]? = nil
        if !arguments.isEmpty {
            let (podcast, numbers) = try await selection(&arguments, context, "wait")
            ids = numbers.map { String(podcast.episodes[$0 - 1].id) }
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
            switch state {
            case .completed(let bytes):
                lines.append("downloaded \(label) (\(ByteCountText.format(Int(bytes))))")
            case .failed(let error):
                failures += 1
                lines.append("failed \(label): \(TerminalText.line(error.description))")
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
