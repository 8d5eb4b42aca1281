import Downloads
import FeedServices
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
        let downloads = context.services.downloads
        // What is waited for: the selected downloads, or every one this shell sees.
        var before: [DownloadView] = []
        if let selector = arguments[waited] {
            for target in try await context.session.targets(selector, verb: "wait", synopsis: arguments.synopsis) {
                if let view = await downloads.view(of: target.request) { before.append(view) }
            }
        } else {
            before = await downloads.all()
        }
        let requests = before.map(\.request)
        let elsewhere = before.filter { if case .elsewhere = $0.holder { true } else { false } }
        if !elsewhere.isEmpty {
            var numbers: [String] = []
            for view in elsewhere { numbers.append(context.session.label(for: view.id).number) }
            context.report(.waitingElsewhere(numbers))
        }
        guard before.contains(where: \.state.isActive) || !elsewhere.isEmpty else {
            context.report(.nothingToWait(selected: arguments[waited] != nil))
            try Self.failures(in: before)
            return Waited(downloads: [])
        }
        context.showProgress?(true)
        await downloads.settle(requests)
        context.showProgress?(false)
        if Task.isCancelled {
            // At the prompt the downloads go on; a script that was interrupted
            // ends, and says what becomes of them as it does (one message, not two
            // that disagree).
            if context.ask != nil { context.report(.stoppedWaiting) }
            return NoResult()
        }
        // Completions and failures were reported as they happened (above the prompt,
        // or on standard error in a script): only what ended otherwise is said here.
        var waited: [Waited.Download] = []
        var after: [DownloadView] = []
        for earlier in before {
            let label = context.session.label(for: earlier.id)
            guard let view = await downloads.view(of: earlier.request), earlier.holder == .here || view.holder != .here
            else {
                // Its holder let it go without a word: another feedsh finished or
                // paused it, or the background feedsh went away. The disk says which.
                let status = await context.services.downloads.status(of: earlier.request)
                waited.append(
                    .init(id: earlier.id, label: label, end: .leftBy(earlier.holder, status, earlier.request))
                )
                continue
            }
            after.append(view)
            waited.append(.init(id: view.id, label: label, end: .here(view.state)))
        }
        try Self.failures(in: after)
        return Waited(downloads: waited)
    }
}

/// How the downloads `wait` waited for ended. Completions and failures were
/// reported as they happened (above the prompt, or on standard error in a
/// script): the text says only what ended otherwise.
struct Waited: CommandResult {
    struct Download: Sendable {
        let id: DownloadID
        let label: DownloadLabel
        let end: End
    }

    /// Where a download ended up.
    enum End: Sendable {
        /// In this engine, or the background feedsh, in this state.
        case here(DownloadManager.State)
        /// Its holder (another feedsh, or the background one that went away) let
        /// it go without a word; the disk says what became of it.
        case leftBy(DownloadHolder, EpisodeStatus, DownloadRequest)
    }

    let downloads: [Download]
}

extension Command {
    /// A failure when any of `views` failed.
    fileprivate static func failures(in views: [DownloadView]) throws(ShellError) {
        let failures = views.filter { if case .failed = $0.state { true } else { false } }.count
        if failures > 0 { throw .downloadsFailed(failures) }
    }
}

extension Command {
    private static let waited = selectorArgument("wait", optional: true)
}
