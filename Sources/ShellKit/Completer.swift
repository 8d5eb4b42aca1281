import Foundation
import PlainText

/// An item the application offers for a completion domain: `3` with its title.
public struct CompletionItem: Sendable, Equatable {
    public var word: String
    public var note: String?

    public init(_ word: String, note: String? = nil) {
        self.word = word
        self.note = note
    }
}

/// Tab completion derived from the specs: command names, verbs, flags, flag values
/// and each argument's completion kind. Uses the real tokenizer, so quotes, escapes
/// and paths with spaces complete as they parse.
public struct Completer: Sendable {
    public let specs: [CommandSpec]

    public init(specs: [CommandSpec]) {
        self.specs = specs
    }

    /// `items` lists a domain's items (episodes a command can act on, search
    /// results, songs); it must answer at once.
    public func complete(_ textBeforeCursor: String, items: (String) -> [CompletionItem]) -> Completion {
        let line = Tokenizer.partial(textBeforeCursor)
        let current = line.current
        func answer(_ candidates: [Completion.Candidate]) -> Completion {
            Completion(replacing: line.replacing, candidates: candidates)
        }
        guard let name = line.words.first else {
            return answer(words(specs.flatMap(\.names).sorted(), matching: current))
        }
        guard var spec = specs.first(where: { $0.names.contains(name) }) else { return answer([]) }
        var rest = Array(line.words.dropFirst())
        // A command whose verbs are optional and that takes words of its own
        // (`export FILE`, `export history FILE`): its verbs and its own words.
        let ownWords = spec.verbOptional && !(spec.arguments.isEmpty && spec.flags.isEmpty)
        if !spec.subcommands.isEmpty {
            if let verb = rest.first, let chosen = spec.subcommand(verb) {
                spec = chosen
                rest.removeFirst()
            } else if rest.isEmpty, !current.hasPrefix("--") {
                let verbs = words(spec.subcommands.map(\.name), matching: current)
                guard ownWords, let first = spec.arguments.first else { return answer(verbs) }
                return answer(verbs + candidates(first.completion, current: current, items: items))
            } else if !ownWords {
                return answer([])
            }
        }
        // The value of an option: `--medium Pa` or `--medium=Pa`.
        if let previous = rest.last, previous.hasPrefix("--"), !previous.contains("="),
            let flag = spec.flags.first(where: { "--" + $0.name == previous }), flag.value != nil
        {
            return answer(candidates(flag.completion, current: current, items: items))
        }
        if current.hasPrefix("--") {
            if let equals = current.firstIndex(of: "=") {
                let name = String(current[current.index(current.startIndex, offsetBy: 2)..<equals])
                guard let flag = spec.flags.first(where: { $0.name == name }) else { return answer([]) }
                let prefix = String(current[...equals])
                let values = candidates(
                    flag.completion,
                    current: String(current[current.index(after: equals)...]),
                    items: items
                )
                return answer(values.map { .init(prefix + $0.word, display: $0.display ?? $0.word, note: $0.note) })
            }
            let unused = spec.flags.filter { !rest.contains("--" + $0.name) }.map { "--" + $0.name }
            return answer(words(unused, matching: current))
        }
        // Which positional the word is: skip options and their values.
        var position = 0
        var index = 0
        while index < rest.count {
            let word = rest[index]
            if word.hasPrefix("--") {
                let flag = spec.flags.first { "--" + $0.name == word }
                if flag?.value != nil { index += 1 }
            } else {
                position += 1
            }
            index += 1
        }
        let argument =
            position < spec.arguments.count
            ? spec.arguments[position] : spec.arguments.last.flatMap { $0.rest ? $0 : nil }
        guard let argument else { return answer([]) }
        return answer(candidates(argument.completion, current: current, items: items))
    }

    private func candidates(
        _ kind: CompletionKind,
        current: String,
        items: (String) -> [CompletionItem]
    ) -> [Completion.Candidate] {
        switch kind {
        case .none: return []
        case .words(let list): return words(list, matching: current)
        case .command: return words(specs.map(\.name), matching: current)
        case .path: return Self.paths(completing: current)
        case .items(let domain):
            return items(domain).filter { $0.word.hasPrefix(current) }.map { .init($0.word, note: $0.note) }
        case .selector(let domain):
            // After `1,` or `2-`: complete the number after the last separator.
            let cut = current.lastIndex { $0 == "," || $0 == "-" }
            let prefix = cut.map { String(current[...$0]) } ?? ""
            let fragment = cut.map { String(current[current.index(after: $0)...]) } ?? current
            return items(domain).filter { $0.word.hasPrefix(fragment) }.map {
                .init(prefix + $0.word, display: $0.word, note: $0.note)
            }
        }
    }

    private func words(_ list: [String], matching prefix: String) -> [Completion.Candidate] {
        let lowered = prefix.lowercased()
        return list.filter { $0.lowercased().hasPrefix(lowered) }.map { .init($0) }
    }

    /// Files and folders whose path starts with `partial` (folders end in `/`),
    /// escaped for the command line.
    public static func paths(completing partial: String) -> [Completion.Candidate] {
        let slash = partial.lastIndex(of: "/")
        let folder = slash.map { String(partial[...$0]) } ?? ""
        let prefix = slash.map { String(partial[partial.index(after: $0)...]) } ?? partial
        let expanded = folder.isEmpty ? "." : (folder as NSString).expandingTildeInPath
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: expanded) else { return [] }
        return names.filter { $0.hasPrefix(prefix) && (prefix.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map {
            name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: expanded + "/" + name, isDirectory: &isDirectory)
            let path = folder + name + (isDirectory.boolValue ? "/" : "")
            return .init(
                Tokenizer.escape(path),
                display: name + (isDirectory.boolValue ? "/" : ""),
                isFinal: !isDirectory.boolValue
            )
        }
    }
}
