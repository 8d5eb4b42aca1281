import FeedServices
import PlainText
import ShellKit
import TerminalKit

/// What a command gives back: a typed value that the shell's renderer writes as
/// text for a person, or encodes (``JSONValueEncoder``) as the `result` of the
/// command's `--json` line. A command declares its result type beside itself; the
/// text of every result is written in `Output/`, where network text is made safe.
protocol CommandResult: Encodable, Sendable {
    /// What a person reads, laid out for `page`; nil writes nothing.
    func text(on page: Page) -> String?
    /// Whether the shell goes on after the command (`quit` ends it).
    var outcome: CommandOutcome { get }
    /// Feeds the command could not read, though it did its work (`update`): a
    /// script that otherwise succeeds ends with ``ExitStatus/feedsNotRead``.
    var feedsNotRead: Int { get }
}

extension CommandResult {
    var outcome: CommandOutcome { .proceed }
    var feedsNotRead: Int { 0 }
}

/// Where a result's text goes: the columns it may take (nil: no wrapping, as in a
/// pipe) and whether it may be bold.
struct Page: Sendable {
    let width: Int?
    let color: Bool

    /// A table laid out on this page.
    func render(_ table: Table) -> String {
        table.render(width: width, bold: color)
    }
}

/// A command that has nothing to say: no text, and JSON `null`.
struct NoResult: CommandResult {
    var outcome: CommandOutcome = .proceed

    func text(on page: Page) -> String? { nil }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

/// A listing that may be empty: its items as a JSON array, and as text either a
/// table of them or, with none, a line saying so.
struct Listing<Item: Sendable>: CommandResult {
    let items: [Item]
    let empty: EmptyListing
    let table: @Sendable ([Item]) -> Table
    /// Nil for a listing read for its table only (``init(items:empty:table:)``).
    let json: (@Sendable ([Item]) -> JSONValue)?

    init(
        items: [Item],
        empty: EmptyListing,
        table: @escaping @Sendable ([Item]) -> Table,
        json: @escaping @Sendable ([Item]) -> JSONValue
    ) {
        self.items = items
        self.empty = empty
        self.table = table
        self.json = json
    }

    /// A listing of items that hold only what the table shows, for a command
    /// that reads another form of them when the shell writes JSON (`new`: its
    /// table's four columns, where `--json` reads whole episodes).
    init(items: [Item], empty: EmptyListing, table: @escaping @Sendable ([Item]) -> Table) {
        self.items = items
        self.empty = empty
        self.table = table
        self.json = nil
    }

    func text(on page: Page) -> String? {
        items.isEmpty ? empty.line.description : page.render(table(items))
    }

    func encode(to encoder: any Encoder) throws {
        guard let json else {
            throw EncodingError.invalidValue(
                "table",
                .init(codingPath: encoder.codingPath, debugDescription: "a listing read for its table only")
            )
        }
        try (items.isEmpty ? JSONValue.array([]) : json(items)).encode(to: encoder)
    }
}
