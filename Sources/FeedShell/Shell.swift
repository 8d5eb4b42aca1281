import Downloads
import FeedKit
import FeedServices
import Foundation
import LineEditor
import PlainText
import ShellKit
import Synchronization
import TerminalKit

/// Runs feedsh commands from scripts or from a person at a prompt.
public final class Shell: Sendable {
    public let session: Session
    let console: Console
    let registry: CommandRegistry
    /// The interactive shell's state shared with the event printer.
    let terminal: TerminalState
    /// Prints what background downloads report until the engine shuts down.
    private let printer: Task<Void, Never>
    /// Download news in scripts, from this session's engine and the background feedsh.
    private let reporter: SharedReporter
    /// Commands running now (`source` runs one inside another): a signalled script
    /// lets the one running finish its own work (``runScript(_:keepGoing:)``).
    let commandsRunning = Atomic<Int>(0)
    /// Feeds `update` could not read in this run: a script that otherwise
    /// succeeds ends with ``ExitStatus/feedsNotRead``.
    let feedsNotRead = Atomic<Int>(0)

    /// A shell over `services`, which the composition root built.
    public init(services: Services, console: Console, registry: CommandRegistry = .standard) {
        let session = Session(services: services)
        let terminal = TerminalState(offers: registry.episodeOffers)
        self.terminal = terminal
        self.session = session
        self.console = console
        self.registry = registry
        let reporter = SharedReporter(console: console)
        self.reporter = reporter
        printer = Task {
            await session.services.downloads.board.run(finish: { id in
                await session.services.downloads.downloadCompleted(id)
            }) { change in
                let label = session.label(for: change.event.id)
                await Self.show(change.event, label: label, session: session, terminal: terminal, reporter: reporter)
                Self.announce(change.aftermath ?? [], console: console, terminal: terminal)
            }
        }
    }

    /// Says what a download event means: above the prompt and in its status area,
    /// or (in scripts) through `reporter`.
    private static func show(
        _ event: DownloadEvent,
        label: DownloadLabel,
        session: Session,
        terminal: TerminalState,
        reporter: SharedReporter
    ) async {
        if DownloadReporter.message(for: event, label: label) != nil { reporter.console.activity.stop() }
        if let editor = terminal.editor {
            await terminal.report(event, label: label, to: editor, session: session)
        } else {
            reporter.report(event, label: label)
        }
    }

    /// Prepares a run: connects to the background feedsh when one runs (its
    /// downloads then show here, with their progress) and says what finished or
    /// failed in the background since the last session.
    public func start() async {
        await session.services.downloads.connectBackground()
        await reportAway()
        await reportPaused()
    }

    /// "2 paused downloads: 'downloads' lists them", when the subscriptions have
    /// partial files on disk (not in JSON: a program asks `downloads`).
    func reportPaused() async {
        guard !console.json else { return }
        let count = await session.services.downloads.partialDownloadCount()
        guard count > 0 else { return }
        console.printError(
            "\(count) paused \(count == 1 ? "download" : "downloads"): 'downloads' lists them, 'resume P:E' continues one"
        )
    }

    /// "while you were away: 2 downloaded, 1 failed (...)", once per event, from the
    /// library (never created for it, and not opened when a plain read finds no
    /// event to report).
    func reportAway() async {
        guard let library = session.services.library.existingWithAwayEvents(),
            let events = try? await library.takeAwayEvents(), !events.isEmpty
        else { return }
        let done = events.filter { !$0.failed }
        let failed = events.filter(\.failed)
        if console.json {
            console.emit(
                JSONValue(
                    encoding: AwayJSON(
                        downloaded: done.map { .init(label: $0.label, path: $0.path) },
                        failed: failed.map { .init(label: $0.label, message: $0.message) }
                    )
                )
            )
            return
        }
        var text = "while you were away: \(done.count) downloaded"
        if !failed.isEmpty {
            let reasons = failed.prefix(3).map { SafeText.line("\($0.label): \($0.message ?? "failed")") }
            text += ", \(failed.count) failed (\(reasons.joined(separator: "; "))\(failed.count > 3 ? "; ..." : ""))"
        }
        console.printError(text)
    }

    /// Says what cleanup deleted: above the prompt, on standard error in scripts, or
    /// as `deleted` events with `--json`.
    static func announce(_ deletions: [CleanupDeletion], console: Console, terminal: TerminalState) {
        guard !deletions.isEmpty else { return }
        if console.json {
            for deletion in deletions { console.emit(deletion.json) }
        } else {
            tell(deletions.map(\.message), console: console, terminal: terminal)
        }
    }

    /// News that did not come from the command running: above the prompt
    /// (wrapped to the screen), or on standard error in scripts.
    static func tell(_ lines: [String], console: Console, terminal: TerminalState) {
        if let editor = terminal.editor {
            let columns = TerminalSize.columns()
            editor.post(lines.flatMap { TextLayout.wrap($0, toWidth: columns).split(separator: "\n").map(String.init) })
        } else {
            for line in lines { console.printError(line) }
        }
    }

    /// The command language's loop, running statements through ``execute(_:)``.
    var runner: ScriptRunner<ShellError> {
        ScriptRunner(
            execute: { words throws(ShellError) in try await self.execute(words) },
            syntaxError: { .syntax($0) },
            interrupted: .interrupted
        )
    }

    /// Runs a script; stops at the first failure unless `keepGoing`.
    ///
    /// Each failure is reported on standard error as `file:line: message` (or
    /// `feedsh: message` for `-c` text). Returns ``ExitStatus/failure`` when any
    /// command failed. At the end it waits for the downloads still running.
    public func run<Lines: Sequence<ScriptLine>>(script: Lines, keepGoing: Bool) async -> ExitStatus {
        let unreadBefore = feedsNotRead.load(ordering: .relaxed)
        let outcome = await runner.run(script: script, keepGoing: keepGoing) { error, command, line in
            self.report(error, command: command, at: line.location)
        }
        switch outcome {
        case .interrupted: return .interrupted
        case .ended(let failed):
            let status = await finishDownloads(failed ? .failure : .success)
            await finishSyncs()
            let unread = feedsNotRead.load(ordering: .relaxed) > unreadBefore
            return status == .success && unread ? .feedsNotRead : status
        }
    }

    /// At the end of a script: waits for downloads still running (saying so), or
    /// with `--detach` hands them to the background feedsh; fails when any download
    /// of the run failed.
    private func finishDownloads(_ status: ExitStatus) async -> ExitStatus {
        let active = await session.services.downloads.engine.all().filter { $0.state.isActive }.count
        if active > 0, session.configuration.detach {
            do throws(ShellError) {
                let (count, pid) = try await session.services.downloads.handOver()
                console.printParagraph(Render.handedOver(count, pid: pid))
                return status
            } catch {
                report(error, command: "detach", at: nil)
                return .failure
            }
        }
        if active > 0 {
            console.printError("waiting for \(active) \(active == 1 ? "download" : "downloads") to finish")
            await session.services.downloads.board.settle(await session.services.downloads.engine.all().map(\.request))
        }
        let failed = await session.services.downloads.engine.all().filter {
            if case .failed = $0.state { true } else { false }
        }
        return failed.isEmpty ? status : .failure
    }

    /// Runs one command given as words, then writes its result: text (through the
    /// pager at the prompt when taller than the screen), or its `--json` line.
    func execute(_ words: [String]) async throws(ShellError) -> CommandOutcome {
        guard let name = words.first else { return .proceed }
        guard let command = registry.command(named: name) else {
            throw .unknownCommand(name, suggestion: registry.suggestion(for: name))
        }
        let arguments: ParsedArguments
        do throws(UsageError) {
            arguments = try ParsedArguments.parse(Array(words.dropFirst()), spec: command.spec)
        } catch {
            throw .usage(error)
        }
        let editor = terminal.editor
        let events = EventRenderer(console: console)
        let context = CommandContext(
            session: session,
            registry: registry,
            history: editor.map { editor in { @Sendable in editor.historyEntries } },
            ask: editor.map { editor in
                { @Sendable question in
                    if case .line(let answer) = await editor.readLine(prompt: question, question: true) {
                        return answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y")
                    }
                    return false
                }
            },
            answer: editor.map { [terminal] editor in
                { @Sendable question in
                    guard let first = await question() else { return .moot }
                    terminal.liveQuestion = question
                    defer { terminal.liveQuestion = nil }
                    switch await editor.readLine(prompt: first, question: true) {
                    case .line(let answer): return .typed(answer.trimmingCharacters(in: .whitespaces).lowercased())
                    case .stopped where terminal.questionWithdrawn: return .moot
                    default: return .none
                    }
                }
            },
            showProgress: editor.map { editor in { @Sendable on in editor.showStatusWhileBusy(on) } },
            holdOutput: editor.map { editor in { @Sendable on in editor.holdOutput(on) } },
            source: { path throws(ShellError) in try await self.source(path) },
            report: { [events] event in events.report(event) },
            json: console.json,
            playerGetsTerminal: !console.json && console.isTerminal && isatty(STDIN_FILENO) == 1
        )
        if editor != nil, command.spec.waitsOnNetwork, !console.json {
            console.startSpinner(command.spec.name + "…")
        }
        commandsRunning.add(1, ordering: .relaxed)
        defer {
            commandsRunning.subtract(1, ordering: .relaxed)
            console.activity.stop()
        }
        let result = try await command.action(arguments, context)
        console.activity.stop()
        feedsNotRead.add(result.feedsNotRead, ordering: .relaxed)
        if console.json {
            // A command without a line of its own (`source`) lets its commands write theirs.
            if command.jsonLine {
                console.emit(
                    JSONValue(
                        encoding: CommandLineJSON(
                            command: command.spec.name,
                            ok: true,
                            result: Self.json(of: result, command: command.spec.name)
                        )
                    )
                )
            }
        } else if let text = result.text(on: Page(width: console.width, color: console.color)) {
            await show(text)
        }
        await syncAfter(command)
        return result.outcome
    }

    /// A result as JSON. Every result encodes (its values are strings, numbers and
    /// ``JSONValue``s); should one ever fail, the line says so instead of crashing.
    private static func json(of result: any CommandResult, command: String) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(result)
        } catch {
            return JSONValue(encoding: ["error": "the result of '\(command)' could not be encoded: \(error)"])
        }
    }

    /// Prints a result; at the prompt, text taller than the screen goes through the
    /// pager (`$PAGER`, default `less -FRX`) unless `--no-pager`.
    func show(_ text: String) async {
        guard let editor = terminal.editor, console.isTerminal, let pager = await session.services.listening.pager(),
            Pager.needed(text, rows: TerminalSize.rows(), columns: TerminalSize.columns())
        else {
            console.print(text)
            return
        }
        // Download news waits while the pager has the screen.
        editor.holdOutput(true)
        let paged = await Pager.run(pager, text: text + "\n")
        editor.holdOutput(false)
        if !paged { console.print(text) }
    }

    /// Runs a file's commands in this shell, stopping at the first failure, whose
    /// message names the file and line.
    func source(_ path: String) async throws(ShellError) -> CommandOutcome {
        switch SourceStack.refusal(for: path) {
        case .cycle?: throw .sourceCycle(path)
        case .tooDeep?: throw .sourceTooDeep(limit: SourceStack.depthLimit)
        case nil: break
        }
        let fd: Int32
        do throws(ScriptFileError) {
            fd = try ScriptFile.open((path as NSString).expandingTildeInPath)
        } catch {
            throw .unreadableFile(path, reason: error.reason)
        }
        defer { Glibc.close(fd) }
        let runner = self.runner
        let outcome = await SourceStack.with(path) {
            await runner.runFile(fd, path: path) { error, location in .located(error, at: location) }
        }
        return try outcome.get()
    }

    /// Runs a script file given on the command line (`-f`), which counts as being
    /// sourced: a file that sources itself is refused before it runs twice.
    public func runScriptFile(_ path: String, fd: Int32, keepGoing: Bool) async -> ExitStatus {
        await SourceStack.with(path) {
            await runScript(ScriptLines(fd: fd, source: path), keepGoing: keepGoing)
        }
    }

    /// Runs the statements of one line typed at the prompt; failures are reported
    /// and do not end the shell.
    func runInteractive(line: String) async -> CommandOutcome {
        switch await runner.run(ScriptLine(text: line, location: nil)) {
        case .finished: return .proceed
        case .quit: return .quit
        case .failed(let error, let command):
            if Task.isCancelled {
                console.printError("interrupted")
            } else {
                report(error, command: command, at: nil, prefix: "error")
            }
            return .proceed
        }
    }

    /// The prompt: `feedsh> `, or the loaded podcast's shortened title, with the
    /// number of active downloads when there are any (`feedsh:Loopback Radio ↓2> `).
    public func prompt() async -> String {
        await Self.prompt(session)
    }

    static func prompt(_ session: Session) async -> String {
        var prompt = "feedsh"
        if let podcast = await session.podcast {
            prompt += ":" + TextLayout.truncate(SafeText.line(podcast.title), toWidth: 24)
        }
        let active = await session.services.downloads.engine.all().filter { $0.state.isActive }.count
        if active > 0 { prompt += " ↓\(active)" }
        return prompt + "> "
    }

    /// Tab completion for the line editor, derived from the command specs; answers
    /// at once from the last snapshot and the live progress.
    public func complete(_ textBeforeCursor: String) -> LineEditor.Completion {
        Completer(specs: registry.specs).complete(textBeforeCursor) { [terminal] domain in
            terminal.completionItems(domain)
        }
    }

    /// Says a command failed: `file:line: message` on standard error, or with
    /// `--json` an error line on standard output.
    func report(_ error: ShellError, command: String?, at location: String?, prefix: String = "feedsh") {
        if console.json {
            console.emit(
                JSONValue(
                    encoding: CommandLineJSON(
                        command: command,
                        ok: false,
                        error: .init(code: error.code, message: error.description, location: location)
                    )
                )
            )
        } else {
            console.printError(console.errorLine(location ?? prefix, SafeText.line(error.description)))
        }
    }

    /// Lets running syncs finish, pauses running downloads, prints their last
    /// events and releases network resources; call once when done.
    public func close() async {
        await finishSyncs()
        await session.close()
        await printer.value
    }
}

/// A file error in a few words (`No such file or directory`), without Foundation's
/// wrapping sentence.
public func describeFileError(_ error: any Error) -> String {
    if let error = error as? CocoaError, let underlying = error.underlying as? POSIXError {
        return String(cString: strerror(underlying.code.rawValue))
    }
    return (error as NSError).localizedDescription
}

/// One line of `--json`: the command, whether it succeeded, and its result or
/// its error (`location` the script line, when it ran from one).
struct CommandLineJSON: Encodable {
    struct Failure: Encodable {
        var code: String
        var message: String
        /// Left out at the prompt.
        var location: String?
    }

    @Nullable var command: String?
    var ok: Bool
    var result: JSONValue?
    var error: Failure?
}

/// What the background feedsh did while no shell was open, said once at start.
struct AwayJSON: Encodable {
    struct Done: Encodable {
        var label: String
        var path: String
    }

    struct Failed: Encodable {
        var label: String
        @Nullable var message: String?
    }

    var event = "away"
    var downloaded: [Done]
    var failed: [Failed]
}
