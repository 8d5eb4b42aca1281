/// How a run of feedsh ends, as its exit status.
public enum ExitStatus: Int32, Sendable {
    /// Every command succeeded.
    case success = 0
    /// A command failed.
    case failure = 1
    /// feedsh itself was called wrongly.
    case usage = 2
    /// Every command ran, but `update` could not read some feeds (each said in
    /// its output): cron can tell a feed that has gone bad.
    case feedsNotRead = 3
    /// Interrupted (SIGINT).
    case interrupted = 130
    /// Ended by SIGHUP (the terminal went away), after pausing downloads.
    case hangUp = 129
    /// Ended by SIGTERM, after pausing downloads.
    case terminated = 143
}
