import Downloads

/// Why a download command failed, beyond what ``Downloads/DownloadError`` says.
enum DownloadsFailure: CommandFailure {
    /// `wait` (or a script's end) saw downloads fail.
    case downloadsFailed(count: Int)

    var failureCode: String { "downloads-failed" }

    var description: String {
        switch self {
        case .downloadsFailed(let count): "\(count) \(count == 1 ? "download" : "downloads") failed"
        }
    }
}

extension DownloadError: CommandFailure {
    var failureCode: String { code.description }
}

extension ShellError {
    static func download(_ error: DownloadError) -> ShellError { .failure(error) }
    static func downloadsFailed(_ count: Int) -> ShellError { .failure(DownloadsFailure.downloadsFailed(count: count)) }
}
