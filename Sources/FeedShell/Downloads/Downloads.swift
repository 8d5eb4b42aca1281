import Downloads
import FeedServices
import Foundation
import ShellKit

extension Command {
    static let downloads = Command(
        CommandSpec(
            "downloads",
            aliases: ["jobs"],
            summary: "list this session's downloads and where their files go",
            details: """
                Every download started in this session, those the background feedsh runs
                (their status starts with 'background'), and the paused ones of your
                subscriptions' episodes left on disk by any earlier run (numbered P:E,
                which 'resume' takes from any shell): number, state and progress, title
                and file.
                """
        )
    ) { _, context throws(ShellError) in
        let listed = await context.services.downloads.listedDownloads()
        let folder = context.services.downloads.folder
        return Listing(
            items: listed,
            empty: .noDownloads,
            table: { Render.downloads($0, folder: folder) },
            json: JSONRender.downloads
        )
    }
}

/// A download as `downloads` lists it: the engine's view, what it means for the
/// file on disk now, and how it is named.
struct ListedDownload: Sendable {
    let view: DownloadView
    let status: EpisodeStatus
    /// How it is shown, and the library episode it is.
    let name: DownloadName

    var label: DownloadLabel { name.label }
}

extension DownloadsService {
    /// Every download worth listing: this engine's, the background feedsh's, and
    /// the paused downloads of library episodes left on disk by any earlier run (or
    /// another shell), named P:E, that this engine does not know. What the disk
    /// says now wins: a finished or paused download whose file was deleted since
    /// is no longer one.
    func listedDownloads() async -> [ListedDownload] {
        var all = await board.all()
        let known = Set(all.map(\.id))
        for partial in await partialDownloads() where !known.contains(partial.target.request.id) {
            all.append(
                DownloadView(
                    request: partial.target.request,
                    state: .paused(bytes: partial.bytes, total: partial.total),
                    holder: .here
                )
            )
        }
        var listed: [ListedDownload] = []
        for view in all {
            let status = EpisodeStatus(engine: view.state, disk: layout.status(of: view.request.file))
            // A download whose file is gone since (deleted, here or in another
            // shell) is no row, wherever it ran.
            if status != .none || view.state == .cancelled {
                listed.append(ListedDownload(view: view, status: status, name: name(for: view.request.id)))
            }
        }
        return listed
    }
}
