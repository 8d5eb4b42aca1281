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
                """
        )
    ) { targets, _, context in
        await startDownloads(targets, context)
    }
}
