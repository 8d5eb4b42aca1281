import Downloads
import ShellKit

extension Command {
    static let cancel = perDownload(
        CommandSpec(
            "cancel",
            summary: "stop downloads and delete what they saved",
            details: """
                Removes the .part file and its metadata; a finished file is kept. With
                'all', partial downloads left by earlier sessions are deleted only after
                you confirm (in a script, only with --yes).
                """,
            flags: [yes.spec]
        ),
        offers: { $0.isActive || $0.isResumable },
        everyDownloadWhenNoneLoaded: true
    ) { selected, arguments, context in
        let allTargets = selected.targets
        let downloads = context.services.downloads
        // Those the background feedsh holds are cancelled there.
        let there = await downloads.cancelWhereHeld(allTargets.map(\.request))
        let remote = allTargets.filter { there[$0.request.id] != nil }
        let targets = allTargets.filter { there[$0.request.id] == nil }
        // Queued ones go first inside the engine, so stopping the running ones starts
        // none of them.
        let cancelled = await downloads.cancelHere(targets.map(\.request.id))
        let earlier = targets.filter { cancelled[$0.request.id] != true }
        var deleteEarlier = true
        if selected.all, !arguments[yes] {
            let partial = earlier.filter {
                if case .partial = downloads.disk($0.request.file) { true } else { false }
            }
            if !partial.isEmpty {
                deleteEarlier = await context.ask?(Render.deleteEarlierQuestion(partial.count)) ?? false
            }
        }
        var outcomes: [Outcome] = remote.map { target in
            there[target.request.id] == true
                ? .cancelled(target.label.number, background: true) : .cancelLost(target.label.number)
        }
        for target in targets {
            let number = target.label.number
            if cancelled[target.request.id] == true {
                outcomes.append(.cancelled(number, background: false))
                continue
            }
            // A .part from an earlier run is only on disk; one another process owns
            // is left alone.
            if !deleteEarlier {
                switch downloads.disk(target.request.file) {
                case .partial: outcomes.append(.kept(number))
                case .downloaded: outcomes.append(.finished(number))
                default: outcomes.append(.notDownloading(number))
                }
                continue
            }
            do throws(DownloadError) {
                if try downloads.removePartial(target.request) {
                    outcomes.append(.cancelled(number, background: false))
                } else if case .downloaded = downloads.disk(target.request.file) {
                    outcomes.append(.finished(number))
                } else {
                    outcomes.append(.notDownloading(number))
                }
            } catch {
                outcomes.append(ownedElsewhere(target, context) ?? .notCancelled(number, reason: error.description))
            }
        }
        // In the order the targets were given.
        let byID = Dictionary(zip((remote + targets).map(\.request.id), outcomes)) { first, _ in first }
        return allTargets.compactMap { byID[$0.request.id] }
    }
}

extension Command {
    private static let yes = CommandFlag("yes")
}
