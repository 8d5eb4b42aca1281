import Foundation
import PlainText

/// Whether the shell goes on after a statement.
public enum StatementOutcome: Sendable, Equatable {
    case proceed
    case quit
}

/// The loop of the command language, the same for scripts, sourced files and the
/// prompt, which differ only in what a failure does. Generic over the
/// application's error type; it runs statements through `execute`.
public struct ScriptRunner<Failure: Error & Sendable>: Sendable {
    /// Runs one statement, given as words.
    public let execute: @Sendable ([String]) async throws(Failure) -> StatementOutcome
    /// The failure for a line that cannot be split into words, or unreadable input.
    public let syntaxError: @Sendable (String) -> Failure
    /// The failure a statement that an interruption kept from starting reports.
    public let interrupted: Failure

    public init(
        execute: @escaping @Sendable ([String]) async throws(Failure) -> StatementOutcome,
        syntaxError: @escaping @Sendable (String) -> Failure,
        interrupted: Failure
    ) {
        self.execute = execute
        self.syntaxError = syntaxError
        self.interrupted = interrupted
    }

    /// How the statements of one line ended.
    public enum LineOutcome: Sendable {
        case finished
        case quit
        /// A statement failed (`command` names it; nil for a syntax error) and the
        /// rest of the line was not run.
        case failed(Failure, command: String?)
    }

    /// Runs the statements of one line until one quits, or fails and `onFailure`
    /// (given the error and the command's name) says not to go on.
    public func run(
        _ line: ScriptLine,
        onFailure: (Failure, String?) -> Bool = { _, _ in false }
    ) async -> LineOutcome {
        if let problem = line.problem {
            let error = syntaxError(problem.description)
            return onFailure(error, nil) ? .finished : .failed(error, command: nil)
        }
        let statements: [[String]]
        do throws(CommandLineSyntaxError) {
            statements = try Tokenizer.statements(line.text)
        } catch {
            let error = syntaxError(error.description)
            return onFailure(error, nil) ? .finished : .failed(error, command: nil)
        }
        for words in statements {
            // An interrupted script starts nothing more (not even the rest of a line).
            if Task.isCancelled { return .failed(interrupted, command: words.first) }
            do throws(Failure) {
                if try await execute(words) == .quit { return .quit }
            } catch {
                if !onFailure(error, words.first) { return .failed(error, command: words.first) }
            }
        }
        return .finished
    }

    /// How a script ended.
    public enum ScriptOutcome: Sendable, Equatable {
        /// It ran to its end or to `quit`; `failed` says whether a statement failed.
        case ended(failed: Bool)
        case interrupted
    }

    /// Runs a script, reporting each failure with its line; stops at the first one
    /// unless `keepGoing`.
    public func run<Lines: Sequence<ScriptLine>>(
        script: Lines,
        keepGoing: Bool,
        report: (Failure, _ command: String?, ScriptLine) -> Void
    ) async -> ScriptOutcome {
        var failed = false
        let reader = ScriptReader(script)
        while let line = await reader.next() {
            if Task.isCancelled { return .interrupted }
            let outcome = await run(line) { error, command in
                if Task.isCancelled { return false }
                report(error, command, line)
                failed = true
                return keepGoing
            }
            if Task.isCancelled { return .interrupted }
            switch outcome {
            case .finished: continue
            case .quit: return .ended(failed: failed)
            case .failed: return .ended(failed: true)
            }
        }
        return .ended(failed: failed)
    }

    /// Runs an open file's lines (`source`), stopping at the first failure, which
    /// `located` marks with the file and line.
    public func runFile(
        _ fd: Int32,
        path: String,
        located: (Failure, String) -> Failure
    ) async -> Result<StatementOutcome, Failure> {
        let reader = ScriptReader(ScriptLines(fd: fd, source: path))
        while let line = await reader.next() {
            switch await run(line) {
            case .finished: continue
            case .quit: return .success(.quit)
            case .failed(let error, _): return .failure(located(error, line.location ?? path))
            }
        }
        return .success(.proceed)
    }
}

/// The files being sourced, innermost last: a file that sources itself, directly or
/// not, is refused before it runs twice, and nesting is bounded.
public enum SourceStack {
    @TaskLocal public static var files: [String] = []
    public static let depthLimit = 8

    /// Why a file may not be sourced now.
    public enum Refusal: Sendable, Equatable {
        case cycle
        case tooDeep
    }

    /// The path as compared: absolute, `~` expanded, links resolved.
    public static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: (path as NSString).expandingTildeInPath).resolvingSymlinksInPath().path
    }

    public static func refusal(for path: String) -> Refusal? {
        if files.contains(canonical(path)) { return .cycle }
        if files.count >= depthLimit { return .tooDeep }
        return nil
    }

    /// Runs `body` with `path` on the stack.
    public static func with<T: Sendable>(_ path: String, _ body: () async -> T) async -> T {
        await $files.withValue(files + [canonical(path)]) { await body() }
    }
}
