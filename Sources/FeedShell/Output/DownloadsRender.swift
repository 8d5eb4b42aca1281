import Downloads
import FeedServices
import Foundation
import PlainText
import TerminalKit

extension Render {
    /// `downloads`: ref, state and progress, podcast, title and file: the path
    /// under the download `folder` (which `about` names), its end kept when cut.
    /// On a narrow terminal the podcast's title shrinks first, then the file (to a
    /// part that still names it), then the episode's title; then the file column
    /// goes, then the podcast's, so that titles keep their words and progress its
    /// rate and ETA, which give way last. What is narrower than its text wraps
    /// under itself on a terminal; only the file is cut.
    static func downloads(_ listed: [ListedDownload], folder: URL) -> Table {
        let root = folder.standardizedFileURL.path + "/"
        return Table(
            columns: [
                .init("#", rightAligned: true),
                .init("Status", maxWidth: 44, wraps: true, fit: .init(order: 6, minWidth: 18)),
                .init("Podcast", maxWidth: 20, wraps: true, fit: .init(order: 1, minWidth: 10, dropOrder: 5)),
                .init("Title", maxWidth: 40, wraps: true, fit: .init(order: 3, minWidth: 16)),
                .init("File", keepsEnd: true, fit: .init(order: 2, minWidth: 20, dropOrder: 4)),
            ],
            rows: listed.map { item in
                var detail: String =
                    switch item.view.state {
                    case .cancelled: "cancelled"
                    case .running(let progress?) where progress.bytes > 0: progress.reading.text
                    default: item.status.text
                    }
                if item.view.holder == .background { detail = "background · " + detail }
                return [
                    item.name.address, SafeText.line(detail), SafeText.line(item.label.podcast ?? ""),
                    item.label.title, SafeText.line(Self.under(root, item.view.request.file.final.path)),
                ]
            }
        )
    }
}

extension Render {
    /// `path` under `root` (which ends in `/`), or `path` itself when it is not.
    static func under(_ root: String, _ path: String) -> String {
        path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }
}

extension JSONRender {
    /// `downloads --json`, in the contract's words (DESIGN.md, `downloads`).
    static func downloads(_ listed: [ListedDownload]) -> JSONValue {
        .array(
            listed.map { item in
                let (request, state, holder, label) = (item.view.request, item.view.state, item.view.holder, item.label)
                let (stateName, bytes, total) = contractState(state)
                return JSONValue(
                    encoding: DownloadJSON(
                        ref: item.name.address,
                        podcast: label.podcast,
                        title: label.title,
                        state: stateName,
                        bytes: bytes,
                        total: total,
                        holder: holder.name,
                        id: request.id.rawValue,
                        label: label.description,
                        path: request.file.final.path,
                        status: JSONRender.state(state),
                        background: holder == .background
                    )
                )
            }
        )
    }

    /// A download's state in the contract's words (DESIGN.md, `downloads`), with
    /// its bytes and total when known.
    private static func contractState(_ state: DownloadManager.State) -> (String, Int64?, Int64?) {
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

extension Render {
    /// `Also delete 2 partial downloads left by earlier sessions? [y/N] `, asked by
    /// `cancel all`.
    static func deleteEarlierQuestion(_ count: Int) -> String {
        "Also delete \(Formatting.count(count, "partial download")) left by earlier sessions? [y/N] "
    }

    /// `2 downloads continue in the background (pid 123); ...`.
    static func handedOver(_ count: Int, pid: Int32) -> String {
        guard count > 0 else { return "no downloads running to hand over" }
        let what = count == 1 ? "1 download continues" : "\(count) downloads continue"
        return "\(what) in the background (feedsh pid \(pid)); any feedsh shows them ('downloads'), and the next "
            + "one started says how they ended"
    }
}

extension HandedOver {
    func text(on page: Page) -> String? { Render.handedOver(handed, pid: pid ?? 0) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(handed, forKey: .handed)
        // Null when nothing was handed over, as no process took anything.
        try container.encode(pid.map(Int.init), forKey: .pid)
    }

    private enum CodingKeys: String, CodingKey {
        case handed
        case pid
    }
}

extension Waited {
    func text(on page: Page) -> String? {
        let lines: [SafeLine] = downloads.compactMap { download -> SafeLine? in
            let label = download.label
            switch download.end {
            case .here(.paused(let bytes, let total)):
                return "paused \(label) at \(Formatting.precisePercent(bytes, of: total))"
            case .here(.cancelled): return "cancelled \(label)"
            case .here: return nil
            case .leftBy(let holder, let status, let request):
                return Self.leftBy(holder, label: label, status: status, file: request)
            }
        }
        return lines.isEmpty ? nil : SafeLine.lines(lines)
    }

    func encode(to encoder: any Encoder) throws {
        try JSONValue.array(
            downloads.map { download in
                let status: JSONValue =
                    switch download.end {
                    case .here(let state): JSONRender.state(state)
                    case .leftBy(_, let status, _): JSONRender.status(status)
                    }
                return JSONValue(
                    encoding: WaitedJSON(id: download.id.rawValue, label: download.label.description, status: status)
                )
            }
        ).encode(to: encoder)
    }

    /// What `wait` says of a download another process held, from what it left on disk.
    private static func leftBy(
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

/// `downloads --json`: one download in the contract's words (DESIGN.md).
private struct DownloadJSON: Encodable {
    @Nullable var ref: String?
    @Nullable var podcast: String?
    var title: String
    var state: String
    @Nullable var bytes: Int64?
    @Nullable var total: Int64?
    var holder: String
    var id: String
    var label: String
    var path: String
    var status: JSONValue
    var background: Bool
}

/// `wait --json`: how each download came out.
private struct WaitedJSON: Encodable {
    var id: String
    var label: String
    var status: JSONValue
}
