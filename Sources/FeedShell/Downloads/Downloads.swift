import Downloads
import ShellKit
import TerminalKit

extension Command {
    static let downloads = Command(
        CommandSpec(
            "downloads",
            aliases: ["jobs"],
            summary: "list this session's downloads and where their files go",
            details: "Every download started in this session: its number, state and progress, title and file."
        )
    ) { _, context throws(ShellError) in
        let all = await context.session.downloads.all()
        guard !all.isEmpty else {
            context.output("no downloads", json: .array([]))
            return .proceed
        }
        var rows: [[String]] = []
        var results: [JSONValue] = []
        for (request, state) in all {
            let detail: String =
                switch state {
                case .cancelled: "cancelled"
                case .running(let progress?) where progress.bytes > 0: progress.reading.text
                default: EpisodeStatus(engine: state, disk: .absent).text
                }
            let label = await context.session.label(for: request.id)
            rows.append([
                label.number, TerminalText.line(detail), label.title, TerminalText.line(request.file.final.path),
            ])
            results.append(
                .object([
                    "id": .string(request.id), "label": .string(label.description),
                    "path": .string(request.file.final.path), "status": JSONRender.state(state),
                ])
            )
        }
        context.output(
            Table(
                columns: [
                    .init("#", rightAligned: true), .init("Status", maxWidth: 36), .init("Title", maxWidth: 32),
                    .init("File", keepsEnd: true),
                ],
                rows: rows
            ),
            json: .array(results)
        )
        return .proceed
    }
}
