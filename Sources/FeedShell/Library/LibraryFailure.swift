import Library
import PlainText

/// Why a library command failed, beyond what ``Library/LibraryError`` says.
enum LibraryFailure: CommandFailure {
    /// A podcast whose directory entry names no feed.
    case noFeed(podcast: String)
    /// `code`: the feed's own error code, which `--json` gives instead of
    /// `subscribe-failed` when there is one.
    case subscribeFailed(url: String, reason: String, code: String?)
    case noSubscriptions
    case noSubscriptionLoaded

    var failureCode: String {
        switch self {
        case .noFeed: "no-feed"
        case .subscribeFailed(_, _, let code): code ?? "subscribe-failed"
        case .noSubscriptions: "no-subscriptions"
        case .noSubscriptionLoaded: "no-subscription-loaded"
        }
    }

    var description: String {
        switch self {
        case .noFeed(let podcast): "\(podcast) has no feed URL in Apple's directory"
        case .subscribeFailed(let url, let reason, _): "cannot subscribe to \(url): \(reason)"
        case .noSubscriptions: "no subscriptions: 'subscribe ID|URL' or 'import FILE' adds some"
        case .noSubscriptionLoaded: "no subscription loaded: run 'podcast N' (see 'podcasts') or 'subscribe' first"
        }
    }
}

extension LibraryError: CommandFailure {
    var failureCode: String { code.description }
}

extension SettingError: CommandFailure {
    var failureCode: String { "setting" }
}

extension ShellError {
    static func library(_ error: LibraryError) -> ShellError { .failure(error) }
    static func setting(_ error: SettingError) -> ShellError { .failure(error) }
    static func noFeed(podcast: String) -> ShellError {
        .failure(LibraryFailure.noFeed(podcast: SafeText.line(podcast)))
    }
    /// `code`: the feed's own error code, which `--json` gives instead of
    /// `subscribe-failed` when there is one.
    static func subscribeFailed(url: String, reason: String, code: String? = nil) -> ShellError {
        .failure(
            LibraryFailure.subscribeFailed(url: SafeText.line(url), reason: SafeText.line(reason), code: code)
        )
    }
    static let noSubscriptions = ShellError.failure(LibraryFailure.noSubscriptions)
    /// `text` names none of `all`: a usage error that says which numbers there are
    /// (`no subscription 9 (1-3, 5)`).
    static func noSubscription(_ text: String, among all: [StoredPodcast], synopsis: String) -> ShellError {
        .usage(
            "no subscription \(text) (\(Command.numberList(all.map(\.number))))",
            synopsis: synopsis
        )
    }
    static let noSubscriptionLoaded = ShellError.failure(LibraryFailure.noSubscriptionLoaded)
}
