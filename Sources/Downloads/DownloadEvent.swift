import Foundation

/// How far a download has come.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes on disk.
    public let bytes: Int64
    /// The file's full length, when the server said.
    public let total: Int64?
    /// The rate over the last seconds; nil until a second has been measured, so that
    /// a first burst from the socket's buffer is not reported as the speed.
    public let bytesPerSecond: Double?

    public init(bytes: Int64, total: Int64?, bytesPerSecond: Double?) {
        self.bytes = bytes
        self.total = total
        self.bytesPerSecond = bytesPerSecond
    }

    /// 0...1, when the total is known.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(bytes) / Double(total))
    }

    /// Time left at the recent rate.
    /// Nil when unknown or beyond a year (a trickle's estimate is no estimate).
    public var eta: Duration? {
        guard let total, let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond > 0 else { return nil }
        let seconds = Double(max(0, total - bytes)) / bytesPerSecond
        guard seconds <= 365 * 86_400 else { return nil }
        return .milliseconds(Int64(seconds * 1000))
    }
}

/// Something that happened to a download, for the shell to show.
public enum DownloadEvent: Sendable, Equatable {
    case queued(id: DownloadID)
    /// A transfer began; `offset` > 0 when it resumes bytes already on disk.
    case started(id: DownloadID, offset: Int64)
    /// At most about ten a second per download.
    case progress(id: DownloadID, DownloadProgress)
    /// The bytes on disk could not be continued and were discarded.
    case restarted(id: DownloadID, reason: RestartReason)
    /// Try `attempt` starts after `delay`.
    case retrying(id: DownloadID, attempt: Int, delay: Duration, reason: RetryReason)
    case paused(id: DownloadID, bytes: Int64, total: Int64?)
    case completed(id: DownloadID, bytes: Int64, file: URL)
    case failed(id: DownloadID, DownloadError)
    case cancelled(id: DownloadID)

    public var id: DownloadID {
        switch self {
        case .queued(let id), .started(let id, _), .progress(let id, _), .restarted(let id, _),
            .retrying(let id, _, _, _), .paused(let id, _, _), .completed(let id, _, _), .failed(let id, _),
            .cancelled(let id):
            id
        }
    }
}
