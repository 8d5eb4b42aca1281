import PlainText

/// What a command declares, with the key its parsed value is read back with: the
/// spec that parsing, help and completion read (an ``ArgumentSpec`` or a
/// ``FlagSpec``), and how the value is read (`arguments[Self.episode]`), typed, so
/// that a misspelt name or a wrong type is a compile error rather than a nil at
/// run time.
///
/// Like swift-argument-parser's `@Argument` and `@Option`, but values: commands
/// here are values in a registry, not types.
public struct Declared<Spec: Sendable, Value: Sendable>: Sendable {
    public let spec: Spec
    fileprivate let read: @Sendable (ParsedArguments) -> Value?

    fileprivate init(_ spec: Spec, read: @escaping @Sendable (ParsedArguments) -> Value?) {
        self.spec = spec
        self.read = read
    }
}

/// A positional argument.
public typealias CommandArgument<Value: Sendable> = Declared<ArgumentSpec, Value>

/// An option that takes a value (`--limit N`, `--medium=M`).
public typealias CommandOption<Value: Sendable> = Declared<FlagSpec, Value>

extension Declared where Spec == ArgumentSpec, Value == String {
    /// Any word; with `rest`, every word left, joined by spaces
    /// (`search song exploder`).
    public init(_ name: String, optional: Bool = false, rest: Bool = false, completion: CompletionKind = .none) {
        self.init(ArgumentSpec(name, optional: optional, rest: rest, completion: completion)) { $0.positional(name) }
    }

    /// A file's path, completed with files and folders.
    public static func path(_ name: String = "FILE", optional: Bool = false) -> CommandArgument<String> {
        CommandArgument(name, optional: optional, completion: .path)
    }
}

extension Declared where Spec == ArgumentSpec, Value == [String] {
    /// Every word left, as they were given: `find "open source" pod*` reads
    /// `["open source", "pod*"]`.
    public static func words(_ name: String, optional: Bool = false) -> CommandArgument<[String]> {
        CommandArgument(ArgumentSpec(name, optional: optional, rest: true)) { $0.restWords(name) }
    }
}

extension Declared where Spec == ArgumentSpec, Value == Selector {
    /// A ``Selector`` of `forms`, numbering `noun`s; its parts are checked once,
    /// when the line is parsed, with one error per bad part.
    public init(
        _ name: String,
        forms: Selector.Forms,
        noun: String,
        optional: Bool = false,
        completion: CompletionKind = .none
    ) {
        self.init(
            ArgumentSpec(name, optional: optional, kind: .selector(forms, noun: noun), completion: completion)
        ) { $0.parsedSelector(name) }
    }
}

extension Declared where Spec == ArgumentSpec, Value: ArgumentChoice {
    /// One of the type's cases, by its raw value (case does not matter); Tab offers
    /// them all.
    public init(_ name: String, optional: Bool = false) {
        self.init(ArgumentSpec(name, optional: optional, kind: .choice(Value.allCases.map(\.rawValue)))) {
            $0.positional(name).flatMap(Value.init(rawValue:))
        }
    }
}

extension Declared where Spec == FlagSpec, Value == Int {
    /// A whole number in `range`, checked when the line is parsed.
    public init(_ name: String, range: ClosedRange<Int>) {
        self.init(FlagSpec(name, value: .integer(range))) { $0.option(name).flatMap { Int($0) } }
    }
}

extension Declared where Spec == FlagSpec, Value == String {
    /// Any text; `placeholder` names it in the synopsis (`--at TIME`).
    public init(_ name: String, placeholder: String, completion: CompletionKind = .none) {
        self.init(FlagSpec(name, value: .text(placeholder), completion: completion)) { $0.option(name) }
    }

    /// One of `words` (case does not matter), read as written in `words`.
    public init(_ name: String, choices words: [String]) {
        self.init(FlagSpec(name, value: .choice(words))) { $0.option(name) }
    }
}

extension Declared where Spec == FlagSpec {
    /// A value `parse` makes of the word (`--at 12:34`), checked when the line is
    /// parsed: a word it refuses is a usage error saying `problem(word)`, the
    /// word sanitized.
    public init(
        _ name: String,
        placeholder: String,
        parse: @escaping @Sendable (String) -> Value?,
        problem: @escaping @Sendable (String) -> String
    ) {
        let spec = FlagSpec(name, value: .text(placeholder)) { word in
            parse(word) == nil ? problem(SafeText.line(word)) : nil
        }
        self.init(spec) { $0.option(name).flatMap(parse) }
    }
}

extension Declared where Spec == FlagSpec, Value: ArgumentChoice {
    /// One of the type's cases, by its raw value (case does not matter).
    public init(_ name: String) {
        self.init(FlagSpec(name, value: .choice(Value.allCases.map(\.rawValue)))) {
            $0.option(name).flatMap(Value.init(rawValue:))
        }
    }
}

/// An option that takes no value (`--has-images`): given or not.
public struct CommandFlag: Sendable {
    public let spec: FlagSpec

    public init(_ name: String) {
        spec = FlagSpec(name)
    }
}

/// A value a positional argument or an option can be one of, by its raw value: an
/// enum of `String`, as swift-argument-parser's `ExpressibleByArgument` enums.
public protocol ArgumentChoice: CaseIterable, RawRepresentable, Sendable where RawValue == String {}

extension ParsedArguments {
    /// The argument's or option's value, if given (a required argument always is).
    public subscript<Spec, Value>(_ declared: Declared<Spec, Value>) -> Value? { declared.read(self) }

    /// Whether the flag was given.
    public subscript(_ flag: CommandFlag) -> Bool { isPresent(flag.spec.name) }
}
