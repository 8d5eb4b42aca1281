import Background
import Downloads
import ShellKit
import TerminalKit

extension Command {
    static let wait = Command(
        CommandSpec(
            "wait",
            summary: "wait for downloads to finish, showing their progress",
            details: """
                Without an argument, waits for every download of this session. At the
                prompt their progress shows while it waits; Ctrl-C stops waiting and the
                downloads go on. A download that another feedsh owns is waited for until
                that process lets it go, and reported from what is on disk then. Fails
                when one of them failed.
                """,
            arguments: [selectorArgument("wait", optional: true)]
        )
    ) { arguments, context throws(ShellError) in
        var targets: [DownloadTarget]? = nil
        if arguments[selectorName] != nil {
            targets = try await selection(arguments, context, "wait")
        }
        let engine = context.session.downloads
        let ids = targets.map { Set($0.map(\.request.id)) }
        var elsewhere: [DownloadTarget] = []
        for target in targets ?? [] where engine.owner(of: target.request) != nil {
            if await engine.state(of: target.request.id)?.isActive != true { elsewhere.append(target) }
        }
        if !elsewhere.isEmpty {
            let numbers = elsewhere.map(\.label.number).joined(separator: ", ")
            context.console.printError("waiting for \(numbers), being downloaded by another feedsh")
        }
        // Whether there is anything to wait for at all, said when there is not.
        let runningHere = await engine.all().contains { $0.state.isActive && (ids?.contains($0.request.id) ?? true) }
        let runningInBackground = await context.session.backgroundDownloads().contains {
            (ids?.contains($0.id) ?? true) && context.session.backgroundStateNow(of: $0.id)?.isActive == true
        }
        let nothingRunning = !runningHere && !runningInBackground && elsewhere.isEmpty
        context.showProgress?(true)
        await engine.waitUntilIdle(ids.map(Array.init))
        await context.session.reportsCaughtUp()
        // Then what the background feedsh runs (those selected, or all of them).
        var inBackground: [ControlDownload] = []
        for download in await context.session.backgroundDownloads() where ids?.contains(download.id) ?? true {
            inBackground.append(download)
        }
        while !Task.isCancelled,
            inBackground.contains(where: { context.session.backgroundStateNow(of: $0.id)?.isActive == true })
        {
            try? await Task.sleep(for: .milliseconds(100))
        }
        for target in elsewhere {
            while !Task.isCancelled, engine.owner(of: target.request) != nil {
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        context.showProgress?(false)
        if Task.isCancelled {
            context.console.printError("stopped waiting; the downloads go on")
            return .proceed
        }
        // Completions and failures were reported as they happened (above the prompt,
        // or on standard error in a script): only what ended otherwise is said here.
        var lines: [String] = []
        var results: [JSONValue] = []
        var failures = 0
        for (request, state) in await engine.all() where ids?.contains(request.id) ?? true {
            let label = await context.session.label(for: request.id)
            if state.isActive { continue }
            results.append(
                .object([
                    "id": .string(request.id), "label": .string(label.description), "status": JSONRender.state(state),
                ])
            )
            switch state {
            case .failed: failures += 1
            case .paused(let bytes, let total):
                lines.append("paused \(label) at \(Formatting.precisePercent(bytes, of: total))")
            case .cancelled: lines.append("cancelled \(label)")
            case .completed, .queued, .running: break
            }
        }
        // What the other process left on disk.
        for target in elsewhere {
            let label = target.label
            let status = await context.session.status(of: target.request)
            results.append(
                .object([
                    "id": .string(target.request.id), "label": .string(label.description),
                    "status": JSONRender.status(status),
                ])
            )
            switch status {
            case .downloaded(let bytes):
                lines.append(
                    "downloaded \(label) (\(ByteCountText.format(Int(bytes)))) to \(TerminalText.line(target.request.file.final.path))"
                )
            case .paused(let bytes, let total):
                lines.append("paused \(label) at \(Formatting.precisePercent(bytes, of: total))")
            default: lines.append("\(label) was not finished by the other feedsh")
            }
        }
        for download in inBackground {
            guard let state = context.session.backgroundStateNow(of: download.id) else {
                // The background process went away (killed) while this waited.
                let number = download.label.number
                lines.append(
                    "\(download.label): the background feedsh went away; 'resume \(number)' continues it here"
                )
                results.append(
                    .object([
                        "id": .string(download.id), "label": .string(download.label.description),
                        "status": JSONRender.status(await context.session.status(of: download.request)),
                    ])
                )
                continue
            }
            if state.state == .failed { failures += 1 }
            results.append(
                .object([
                    "id": .string(download.id), "label": .string(download.label.description),
                    "status": JSONRender.state(state.engineState),
                ])
            )
        }
        if !lines.isEmpty || context.console.json {
            context.output(lines.joined(separator: "\n"), json: .array(results))
        } else if nothingRunning, failures == 0 {
            context.console.printError(
                targets == nil ? "nothing to wait for: no download is running" : "nothing to wait for: not downloading"
            )
        }
        if failures > 0 { throw .downloadsFailed(failures) }
        return .proceed
    }
}
