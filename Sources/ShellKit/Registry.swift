/// A command the registry can hold: anything with a spec.
public protocol DeclaredCommand: Sendable {
    var spec: CommandSpec { get }
}

/// The commands by name, in the order `help` lists them, with suggestions for typos.
public struct Registry<Command: DeclaredCommand>: Sendable {
    public let commands: [Command]

    public init(_ commands: [Command]) {
        self.commands = commands
    }

    public var specs: [CommandSpec] { commands.map(\.spec) }

    public func command(named name: String) -> Command? {
        commands.first { $0.spec.names.contains(name) }
    }

    /// The command `name` abbreviates when only one starts with it, else the closest
    /// name within two edits, for "did you mean".
    public func suggestion(for name: String) -> String? {
        let names = commands.flatMap(\.spec.names)
        let extensions = names.filter { $0.hasPrefix(name) }
        if !name.isEmpty, extensions.count == 1 { return extensions[0] }
        let scored = names.map { ($0, editDistance($0, name)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }
}

/// Levenshtein distance with transpositions counted as one edit.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}
