import FeedKit

/// An API's or a feed's failure, shown as it is (its URL, status and key path).
extension FeedError: CommandFailure {
    var failureCode: String { code.description }
}

extension ShellError {
    static func feed(_ error: FeedError) -> ShellError { .failure(error) }
}

/// Runs an API call, turning its ``FeedKit/FeedError`` into a shell failure.
func feed<T>(_ call: () async throws(FeedError) -> T) async throws(ShellError) -> T {
    do {
        return try await call()
    } catch {
        throw .feed(error)
    }
}
