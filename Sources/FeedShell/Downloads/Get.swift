import Downloads
import ShellKit

extension Command {
    static let get = perDownload(
        CommandSpec(
            "get",
            summary: "download episodes in the background",
            details: """
                Returns at once; progress and results print as they come. At most
                --max-concurrent downloads run at a time, the rest are queued. A .part file
                left by an earlier run is continued, not started again. Files go to
                {download-dir}/{podcast id}/{episode id}.{ext}; 'show N' prints the path.
                --again deletes a downloaded file (or a partial one) first and downloads
                it anew.
                """,
            flags: [again.spec]
        ),
        offers: \.isStartable
    ) { selected, arguments, context in
        guard arguments[again] else { return await startDownloads(selected.targets, context) }
        return await startAll(selected.targets, context) { target in
            let number = target.label.number
            if let state = await context.services.downloads.state(of: target.request.id), state.isActive {
                return .skip(.alreadyDownloading(number))
            }
            if ownedElsewhere(target, context) == nil {
                _ = await context.services.downloads.deleteFile(of: target.request)
                _ = try? context.services.downloads.removePartial(target.request)
            }
            return .start()
        }
    }
}

extension Command {
    private static let again = CommandFlag("again")
}
