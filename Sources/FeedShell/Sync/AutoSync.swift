import FeedServices
import PlainText
import Sync

extension Shell {
    /// After a command that ``Command/syncsAfter`` (`update`, `play`), with `set
    /// sync auto on` and an account: a sync in the background while the next
    /// command runs. Only what failed is said: above the prompt, on standard error
    /// in scripts, or as a `sync` event with `--json`.
    func syncAfter(_ command: Command) async {
        guard command.syncsAfter else { return }
        let console = console
        let terminal = terminal
        await session.syncAutomatically { result in
            Self.announce(AutomaticSyncNews(result), console: console, terminal: terminal)
        }
    }

    /// Waits for the syncs still running, saying so at the prompt when it takes a
    /// moment; what they could not send waits in the library for the next one.
    func finishSyncs() async {
        if terminal.editor != nil, !console.json, await session.services.sync.underWay {
            console.printError("finishing the sync")
        }
        await session.services.sync.settled()
    }

    private static func announce(_ news: AutomaticSyncNews?, console: Console, terminal: TerminalState) {
        guard let news else { return }
        if console.json {
            console.emit(news.json)
        } else {
            tell(news.lines, console: console, terminal: terminal)
        }
    }
}

/// What an automatic sync has to say: nothing when all went well; its failure,
/// or the feeds it could not follow.
struct AutomaticSyncNews {
    var lines: [String]
    var json: JSONValue

    init?(_ result: Result<SyncReport, ShellError>) {
        switch result {
        case .failure(let error):
            // "automatic sync failed: cannot connect to …", not "…: cannot sync: cannot connect".
            let reason = (error.failure as? SyncError)?.reason ?? error.description
            lines = ["automatic sync failed: \(SafeText.line(reason))"]
            json = JSONValue(
                encoding: AutoSyncJSON(ok: false, error: .init(code: error.code, message: error.description))
            )
        case .success(let report):
            guard !report.problems.isEmpty else { return nil }
            lines = report.problems.map { "automatic sync: \(SafeText.line($0))" }
            json = JSONValue(encoding: AutoSyncJSON(ok: true, problems: report.problems))
        }
    }
}

/// An automatic sync's line in `--json`: its failure, or the problems of one
/// that went through.
private struct AutoSyncJSON: Encodable {
    struct Failure: Encodable {
        var code: String
        var message: String
    }

    var event = "sync"
    var ok: Bool
    var error: Failure?
    var problems: [String]?
}
