import FeedServices
import Library
import TerminalKit

extension EpisodeMarks {
    /// `played`, `at 12:34` (listened that far) or `new`, for the status column when
    /// no download says more.
    var text: String {
        if played { return "played" }
        if position >= 1 { return "at " + Formatting.duration(.seconds(position)) }
        return isNew ? "new" : ""
    }
}

extension LibraryService {
    /// Subscription `text` (its number in `podcasts`, which stays its own), or a
    /// usage error that says which numbers there are.
    func subscription(numbered text: some StringProtocol, synopsis: String) async throws(ShellError) -> StoredPodcast {
        let library = try make()
        let all = try await libraryCall { () async throws(LibraryError) in try await library.subscriptions() }
        guard !all.isEmpty else { throw .noSubscriptions }
        guard let number = Int(text), let podcast = all.first(where: { $0.number == number }) else {
            throw .noSubscription(String(text), among: all, synopsis: synopsis)
        }
        return podcast
    }
}
