import Downloads
import PlainText
import ShellKit

extension Command {
    static let delete = perDownload(
        CommandSpec(
            "delete",
            summary: "delete downloaded files (the episodes stay in the library)",
            details: """
                Removes the complete files of the selected episodes or songs; their
                records, played state and positions stay, and 'get' or 'get --again'
                downloads them again. A download in progress is left alone ('cancel'
                stops it and removes its partial file).
                """
        ),
        offers: { $0.isDownloaded }
    ) { selected, _, context in
        var outcomes: [Outcome] = []
        for target in selected.targets {
            let number = target.label.number
            if let state = await context.services.downloads.state(of: target.request.id), state.isActive {
                outcomes.append(.stillDownloading(number))
            } else if await context.services.downloads.deleteFile(of: target.request) {
                outcomes.append(.deleted(target.label, path: target.request.file.final.path))
            } else {
                outcomes.append(.notDownloaded(number))
            }
        }
        return outcomes
    }
}
