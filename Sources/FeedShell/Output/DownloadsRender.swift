import Downloads
import PlainText
import TerminalKit

extension Render {
    /// `downloads`: ref, state and progress, podcast, title and file (its end kept
    /// when cut).
    static func downloads(_ listed: [ListedDownload]) -> Table {
        Table(
            columns: [
                .init("#", rightAligned: true), .init("Status", maxWidth: 36), .init("Podcast", maxWidth: 20),
                .init("Title", maxWidth: 32), .init("File", keepsEnd: true),
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
                    item.label.address, SafeText.line(detail), SafeText.line(item.label.podcast ?? ""),
                    item.label.title, SafeText.line(item.view.request.file.final.path),
                ]
            }
        )
    }
}

extension JSONRender {
    /// `downloads --json`, in the contract's words (DESIGN.md, `downloads`).
    static func downloads(_ listed: [ListedDownload]) -> JSONValue {
        .array(
            listed.map { item in
                let (request, state, holder, label) = (item.view.request, item.view.state, item.view.holder, item.label)
                let (stateName, bytes, total) = contractState(state)
                return .object([
                    "ref": .string(label.address), "podcast": .string(label.podcast), "title": .string(label.title),
                    "state": .string(stateName), "bytes": bytes.map { .int($0) } ?? .null,
                    "total": total.map { .int($0) } ?? .null, "holder": .string(holder.name),
                    "id": .string(request.id), "label": .string(label.description),
                    "path": .string(request.file.final.path), "status": JSONRender.state(state),
                    "background": .bool(holder == .background),
                ])
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
