import Foundation
import PlainText

/// `help`, `help NAME` and the man page's command list, from the specs.
public enum HelpText {
    /// The command list: name and summary, wrapped under the summary's column.
    public static func overview(_ specs: [CommandSpec], width: Int?) -> String {
        let nameWidth = specs.map { TextLayout.width($0.name) }.max() ?? 0
        var lines = ["Commands (type 'help COMMAND' for more):"]
        for spec in specs {
            let indent = String(repeating: " ", count: nameWidth + 4)
            let summary = wrap(spec.summary, width.map { $0 - indent.count })
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (index, part) in summary.enumerated() {
                lines.append(
                    index == 0 ? "  " + TextLayout.pad(spec.name, toWidth: nameWidth) + "  " + part : indent + part
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `usage: SYNOPSIS`, the summary, the details and the aliases, wrapped at word
    /// boundaries to `width`.
    public static func command(_ spec: CommandSpec, width: Int?) -> String {
        var paragraphs = ["usage: " + spec.synopsis, spec.summary]
        if !spec.details.isEmpty { paragraphs.append(unwrap(spec.details)) }
        if !spec.aliases.isEmpty { paragraphs.append("aliases: " + spec.aliases.joined(separator: ", ")) }
        return paragraphs.map { wrap($0, width) }.joined(separator: "\n\n")
    }

    /// The SHELL COMMANDS section of the man page, in troff.
    public static func manPage(_ specs: [CommandSpec]) -> String {
        var out = ".SH SHELL COMMANDS\nEach has \\fBhelp\\fR \\fIcommand\\fR in the shell.\n"
        for spec in specs {
            let summary = spec.summary.prefix(1).uppercased() + spec.summary.dropFirst()
            out += ".TP\n.B " + troff(spec.synopsis) + "\n" + troff(summary) + "."
            if !spec.details.isEmpty { out += "\n" + troff(unwrap(spec.details)) }
            if !spec.aliases.isEmpty { out += "\nAliases: " + troff(spec.aliases.joined(separator: ", ")) + "." }
            out += "\n"
        }
        return out
    }

    /// Details are written in source as hard-wrapped paragraphs: join their lines, so
    /// that the terminal's width decides where lines break. Blank lines and list
    /// items (`- `) keep their breaks.
    static func unwrap(_ text: String) -> String {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let last = out.last, !last.isEmpty, !line.isEmpty, !line.hasPrefix("- "), !line.hasPrefix(" ") {
                out[out.count - 1] = last + " " + line
            } else {
                out.append(line)
            }
        }
        return out.joined(separator: "\n")
    }

    private static func wrap(_ text: String, _ width: Int?) -> String {
        width.map { TextLayout.wrap(text, toWidth: max(20, $0)) } ?? text
    }

    private static func troff(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
            }.joined(separator: "\n.br\n")
    }
}
