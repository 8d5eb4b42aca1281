import FeedServices

/// The background feedsh could not be started or reached.
struct BackgroundFailure: CommandFailure {
    let message: String

    var failureCode: String { "background" }
    var description: String { message }
}

extension ShellError {
    static func background(_ message: String) -> ShellError { .failure(BackgroundFailure(message: message)) }
}

extension DownloadsService {
    /// ``detach()``, failing as a shell command does.
    func handOver() async throws(ShellError) -> (count: Int, pid: Int32) {
        do throws(BackgroundError) {
            return try await detach()
        } catch {
            throw .background(error.description)
        }
    }
}
