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

    static let get = Command(
        name: "get",
        synopsis: "get N|N-M|N,M|all",
        summary: "download episodes in the background",
        details: """
            \(selectorDetails) Returns at once; progress and results print as they come.
            At most --max-concurrent downloads run at a time, the rest are queued.
            A .part file left by an earlier run is continued, not started again.
            """
    ) { arguments, context throws(ShellError) in
        let (podcast, numbers) = try await selection(&arguments, context, "get")
        var lines: [String] = []
        for number in numbers {
            let episode = podcast.episodes[number - 1]
            switch await context.session.status(of: episode, in: podcast) {
            case .downloaded:
                lines.append("\(number) is already downloaded")
                continue
            case .queued, .downloading:
                lines.append("\(number) is already downloading")
                continue
            default:
                break
            }
            let request = await context.session.downloadRequest(number: number, of: podcast)
            switch await context.session.downloads.start(request) {
            case .started: lines.append("downloading \(number): \(TerminalText.line(episode.title))")
            case .queued: lines.append("queued \(number): \(TerminalText.line(episode.title))")
            case .alreadyActive: lines.append("\(number) is already downloading")
            }
        }
        context.console.print(lines.joined(separator: "\n"))
        return .proceed
    }

    static let pause = Command(
        name: "pause",
        synopsis: "pause N|N-M|N,M|all",
        summary: "pause downloads, keeping what has arrived",
        details: "\(selectorDetails) The .part file stays; 'resume' continues it, now or in a later run."
    ) { arguments, context throws(ShellError) in
        let (podcast, numbers) = try await selection(&arguments, context, "pause")
        var lines: [String] = []
        for number in numbers {
            let id = String(podcast.episodes[number - 1].id)
            switch await context.session.downloads.pause(id) {
            case .paused(let bytes, let total)?:
                lines.append("paused \(number) at \(EpisodeStatus.precisePercent(bytes, total))")
            case .completed?:
                lines.append("\(number) finished before it could be paused")
            default:
                lines.append("\(number) is not downloading")
            }
        }
        context.console.print(lines.joined(separator: "\n"))
        return .proceed
    }

    static let resume = Command(
        name: "resume",
        synopsis: "resume N|N-M|N,M|all",
        summary: "continue paused or failed downloads",
        details: "\(selectorDetails) Continues from the bytes on disk with a Range request."
    ) { arguments, context throws(ShellError) in
        let (podcast, numbers) = try await selection(&arguments, context, "resume")
        var lines: [String] = []
        for number in numbers {
            let episode = podcast.episodes[number - 1]
            let status = await context.session.status(of: episode, in: podcast)
            switch status {
            case .paused(let bytes, let total):
                let request = await context.session.downloadRequest(number: number, of: podcast)
                await context.session.downloads.start(request)
                lines.append("resuming \(number) at \(EpisodeStatus.precisePercent(bytes, total))")
            case .failed:
                let request = await context.session.downloadRequest(number: number, of: podcast)
                await context.session.downloads.start(request)
                lines.append("retrying \(number)")
            case .queued, .downloading:
                lines.append("\(number) is already downloading")
            case .downloaded:
                lines.append("\(number) is already downloaded")
            case .none:
                lines.append("\(number) is not paused (use 'get \(number)')")
            }
        }
        context.console.print(lines.joined(separator: "\n"))
        return .proceed
    }

    static let cancel = Command(
        name: "cancel",
        synopsis: "cancel N|N-M|N,M|all",
        summary: "stop downloads and delete what they saved",
        details: "\(selectorDetails) Removes the .part file and its metadata; a finished file is kept."
    ) { arguments, context throws(ShellError) in
        let (podcast, numbers) = try await selection(&arguments, context, "cancel")
        var lines: [String] = []
        for number in numbers {
            let episode = podcast.episodes[number - 1]
            let status = await context.session.status(of: episode, in: podcast)
            let request = await context.session.downloadRequest(number: number, of: podcast)
            if await context.session.downloads.cancel(request.id) {
                lines.append("cancelled \(number)")
            } else if status.isPartial {
                // Left by an earlier run: the engine does not know it, the disk does.
                unlink(request.file.part.path)
                unlink(request.file.sidecar.path)
                lines.append("cancelled \(number)")
            } else {
                lines.append("\(number) is not downloading")
            }
        }
        context.console.print(lines.joined(separator: "\n"))
        return .proceed
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
            context.console.print("no downloads")
            return .proceed
        }
        var rows: [[String]] = []
        for (request, state) in all {
            let detail: String =
                switch state {
                case .cancelled: "cancelled"
                case .running(let progress?) where progress.bytes > 0: progressText(progress)
                default: EpisodeStatus(engine: state, disk: .absent).text
                }
            rows.append([TerminalText.line(detail), await context.session.label(for: request.id)])
        }
        context.console.print(
            Render.table(header: ["Status", "Episode"], rows: rows, rightAligned: [], width: context.console.width)
        )
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
        var lines: [String] = []
        var failures = 0
        for (request, state) in await context.session.downloads.all() where ids?.contains(request.id) ?? true {
            let label = await context.session.label(for: request.id)
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
        if !lines.isEmpty { context.console.print(lines.joined(separator: "\n")) }
        if failures > 0 {
            throw .other("\(failures) \(failures == 1 ? "download" : "downloads") failed")
        }
        return .proceed
    }
}
