import Downloads
import Foundation
import PlainText
import ShellKit
import TerminalKit

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
        var all = await context.session.board.all()
        // Paused downloads of library episodes left on disk by any earlier run (or
        // another shell), named P:E, that this engine does not know.
        let known = Set(all.map(\.id))
        for partial in await context.session.partialDownloads() where !known.contains(partial.target.request.id) {
            all.append(
                DownloadView(
                    request: partial.target.request,
                    state: .paused(bytes: partial.bytes, total: partial.total),
                    holder: .here
                )
            )
        }
        // What the disk says now: a finished or paused download whose file was
        // deleted since is no longer one.
        let layout = context.session.layout
        var shown: [(view: DownloadView, status: EpisodeStatus)] = []
        for view in all {
            let status = EpisodeStatus(engine: view.state, disk: layout.status(of: view.request.file))
            if status != .none || view.state == .cancelled || view.holder == .background {
                shown.append((view, status))
            }
        }
        guard !shown.isEmpty else {
            context.output("no downloads", json: .array([]))
            return .proceed
        }
        var rows: [[String]] = []
        var results: [JSONValue] = []
        for (view, status) in shown {
            let (request, state, holder) = (view.request, view.state, view.holder)
            var detail: String =
                switch state {
                case .cancelled: "cancelled"
                case .running(let progress?) where progress.bytes > 0: progress.reading.text
                default: status.text
                }
            if holder == .background { detail = "background · " + detail }
            let label = await context.session.label(for: request.id)
            let (ref, podcast) = (label.address, label.podcast)
            rows.append([
                ref, SafeText.line(detail), SafeText.line(podcast ?? ""), label.title,
                SafeText.line(request.file.final.path),
            ])
            let (stateName, bytes, total) = Self.contractState(state)
            results.append(
                .object([
                    "ref": .string(ref), "podcast": .string(podcast), "title": .string(label.title),
                    "state": .string(stateName), "bytes": bytes.map { .int($0) } ?? .null,
                    "total": total.map { .int($0) } ?? .null, "holder": .string(holder.name),
                    "id": .string(request.id), "label": .string(label.description),
                    "path": .string(request.file.final.path), "status": JSONRender.state(state),
                    "background": .bool(holder == .background),
                ])
            )
        }
        context.output(
            Table(
                columns: [
                    .init("#", rightAligned: true), .init("Status", maxWidth: 36), .init("Podcast", maxWidth: 20),
                    .init("Title", maxWidth: 32), .init("File", keepsEnd: true),
                ],
                rows: rows
            ),
            json: .array(results)
        )
        return .proceed
    }
}

extension Command {
    /// A download's state in the contract's words (DESIGN.md, `downloads`), with
    /// its bytes and total when known.
    fileprivate static func contractState(_ state: DownloadManager.State) -> (String, Int64?, Int64?) {
        switch state {
        case .queued: ("queued", nil, nil)
        case .running(let progress): ("downloading", progress?.bytes, progress?.total)
        case .paused(let bytes, let total): ("paused", bytes, total)
        case .completed(let bytes): ("completed", bytes, bytes)
        case .failed: ("failed", nil, nil)
        case .cancelled: ("cancelled", nil, nil)
        }
    }
}
