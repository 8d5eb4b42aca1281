import Downloads
import Foundation
import PlainText
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
            arguments: [waited.spec]
        ),
        offers: { $0.isActive }
    ) { arguments, context throws(ShellError) in
        let board = context.session.board
        // What is waited for: the selected downloads, or every one this shell sees.
        var before: [DownloadView] = []
        if let selector = arguments[waited] {
            for target in try await context.session.targets(selector, verb: "wait", synopsis: arguments.synopsis) {
                if let view = await board.view(of: target.request) { before.append(view) }
            }
        } else {
            before = await board.all()
        }
        let requests = before.map(\.request)
        let elsewhere = before.filter { if case .elsewhere = $0.holder { true } else { false } }
        if !elsewhere.isEmpty {
            var numbers: [String] = []
            for view in elsewhere { numbers.append(context.session.label(for: view.id).number) }
            context.console.printError(
                "waiting for \(numbers.joined(separator: ", ")), being downloaded by another feedsh"
            )
        }
        guard before.contains(where: \.state.isActive) || !elsewhere.isEmpty else {
            if context.console.json {
                context.output("", json: .array([]))
            } else {
                context.console.printError(
                    arguments[waited] == nil
                        ? "nothing to wait for: no download is running" : "nothing to wait for: not downloading"
                )
            }
            return try Self.failures(in: before)
        }
        context.showProgress?(true)
        await board.settle(requests)
        context.showProgress?(false)
        if Task.isCancelled {
            // At the prompt the downloads go on; a script that was interrupted
            // ends, and says what becomes of them as it does (one message, not two
            // that disagree).
            if context.ask != nil { context.console.printError("stopped waiting; the downloads go on") }
            return .proceed
        }
        // Completions and failures were reported as they happened (above the prompt,
        // or on standard error in a script): only what ended otherwise is said here.
        var lines: [SafeLine] = []
        var results: [JSONValue] = []
        var after: [DownloadView] = []
        for earlier in before {
            let label = context.session.label(for: earlier.id)
            guard let view = await board.view(of: earlier.request), earlier.holder == .here || view.holder != .here
            else {
                // Its holder let it go without a word: another feedsh finished or
                // paused it, or the background feedsh went away. The disk says which.
                let status = await context.session.status(of: earlier.request)
                results.append(Self.result(earlier.id, label, JSONRender.status(status)))
                lines.append(Self.leftBy(earlier.holder, label: label, status: status, file: earlier.request))
                continue
            }
            after.append(view)
            results.append(Self.result(view.id, label, JSONRender.state(view.state)))
            switch view.state {
            case .paused(let bytes, let total):
                lines.append("paused \(label) at \(Formatting.precisePercent(bytes, of: total))")
            case .cancelled: lines.append("cancelled \(label)")
            case .completed, .queued, .running, .failed: break
            }
        }
        if !lines.isEmpty || context.console.json {
            context.output(SafeLine.lines(lines), json: .array(results))
        }
        return try Self.failures(in: after)
    }
}

extension Command {
    /// A failure when any of `views` failed.
    fileprivate static func failures(in views: [DownloadView]) throws(ShellError) -> CommandOutcome {
        let failures = views.filter { if case .failed = $0.state { true } else { false } }.count
        if failures > 0 { throw .downloadsFailed(failures) }
        return .proceed
    }

    fileprivate static func result(_ id: String, _ label: DownloadLabel, _ status: JSONValue) -> JSONValue {
        .object(["id": .string(id), "label": .string(label.description), "status": status])
    }

    /// What `wait` says of a download another process held, from what it left on disk.
    fileprivate static func leftBy(
        _ holder: DownloadHolder,
        label: DownloadLabel,
        status: EpisodeStatus,
        file request: DownloadRequest
    ) -> SafeLine {
        switch (status, holder) {
        case (.downloaded(let bytes), _):
            return "downloaded \(label) (\(ByteCountText.format(Int(bytes)))) to \(request.file.final.path)"
        case (_, .background):
            return "\(label): the background feedsh went away; 'resume \(label.number)' continues it here"
        case (.paused(let bytes, let total), _):
            return "paused \(label) at \(Formatting.precisePercent(bytes, of: total))"
        default:
            return "\(label) was not finished by the other feedsh"
        }
    }
}

extension Command {
    private static let waited = selectorArgument("wait", optional: true)
}
