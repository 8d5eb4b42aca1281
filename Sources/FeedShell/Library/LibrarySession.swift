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
    /// usage error that says which numbers there are. Only a number that names
    /// none reads them all (2,000 subscriptions took about 10 ms to read).
    func subscription(numbered text: some StringProtocol, synopsis: String) async throws(ShellError) -> StoredPodcast {
        let library = try make()
        if let number = Int64(text),
            let podcast = try await libraryCall({ () async throws(LibraryError) in try await library.podcast(number) })
        {
            return podcast
        }
        let all = try await libraryCall { () async throws(LibraryError) in try await library.subscriptions() }
        guard !all.isEmpty else { throw .noSubscriptions }
        guard let number = Int(text), let podcast = all.first(where: { $0.number == number }) else {
            throw .noSubscription(String(text), among: all, synopsis: synopsis)
        }
        return podcast
    }
}
