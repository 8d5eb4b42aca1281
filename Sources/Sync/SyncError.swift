import Foundation
import HTTPSupport
import Library
import PlainText
import WebBasics

/// Why a sync failed, with what a person needs to mend it. A struct over a private
/// enum, as `FeedError` is, so that it can grow; `code` is stable for `--json`.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case badReply(url: URL, path: String, problem: String)
        case refused(user: String)
        case status(Int, URL)
        /// A move (3xx) that is not followed: an upload answered 301, 302 or 303
        /// (a client would send it again as a GET, and take that answer as the
        /// acknowledgement), or a move to another origin.
        case moved(Int, URL, to: String?)
        case badDeviceName(String)
        case network(NetworkFailure)
        case library(LibraryError)
        case notLoggedIn
        case unreadableLogin(path: String, problem: String)
        case busy(path: String, after: Duration)
        case lock(path: String, problem: String)
    }

    private let kind: Kind

    /// The server answered something that is not what the API says, at `path` in
    /// its JSON (`$.actions`) or `$` for the whole reply.
    public static func badReply(url: URL, path: String, problem: String) -> SyncError {
        SyncError(kind: .badReply(url: url, path: path, problem: problem))
    }
    /// 401: the user's password was refused.
    public static func refused(user: String) -> SyncError { SyncError(kind: .refused(user: user)) }
    /// Any other status that is not success.
    public static func status(_ code: Int, url: URL) -> SyncError { SyncError(kind: .status(code, url)) }

    public static func moved(_ code: Int, url: URL, to location: String?) -> SyncError {
        SyncError(kind: .moved(code, url, to: location))
    }
    /// A device name the API cannot take.
    public static func badDeviceName(_ name: String) -> SyncError { SyncError(kind: .badDeviceName(name)) }
    /// The server could not be reached, or TLS with it failed: the failure names
    /// the host.
    public static func network(_ failure: NetworkFailure) -> SyncError { SyncError(kind: .network(failure)) }
    /// The library could not be read or written: nothing of the sync after it ran.
    public static func library(_ error: LibraryError) -> SyncError { SyncError(kind: .library(error)) }
    /// `sync` before `sync login`.
    public static let notLoggedIn = SyncError(kind: .notLoggedIn)
    /// The file that keeps the login cannot be read or written.
    public static func unreadableLogin(path: String, problem: String) -> SyncError {
        SyncError(kind: .unreadableLogin(path: path, problem: problem))
    }

    /// Another process's sync of the library held its lock (`path`) all of `after`.
    public static func busy(path: String, after: Duration) -> SyncError {
        SyncError(kind: .busy(path: path, after: after))
    }
    /// The sync lock file cannot be opened.
    public static func lock(path: String, problem: String) -> SyncError {
        SyncError(kind: .lock(path: path, problem: problem))
    }

    public var code: String {
        switch kind {
        case .badReply: "sync-bad-reply"
        case .refused: "sync-refused"
        case .status: "sync-status"
        case .moved: "sync-moved"
        case .badDeviceName: "sync-device-name"
        case .network: "sync-network"
        case .library(let error): error.code.description
        case .notLoggedIn: "sync-not-logged-in"
        case .unreadableLogin: "sync-login-file"
        case .busy: "sync-busy"
        case .lock: "sync-lock"
        }
    }

    /// What went wrong, where the subject is already a sync: a network failure
    /// without the "cannot sync:" that `description` puts before it.
    public var reason: String {
        if case .network(let failure) = kind { return failure.description }
        return description
    }

    public var description: String {
        switch kind {
        case .badReply(let url, let path, let problem): "\(url.redacted) answered \(problem) at \(path)"
        case .refused(let user): "the server refused user \(user)'s password"
        case .status(let code, let url): "\(url.redacted) answered HTTP \(code)"
        case .moved(let code, let url, let location):
            "\(url.redacted) answered HTTP \(code), a move to \(location.map(SafeText.line) ?? "nowhere"), "
                + "which is not followed: nothing sent there was taken as stored"
        case .badDeviceName(let name):
            "'\(name)' cannot be a device name: use letters, digits, '.', '-' and '_' (at most 64)"
        case .network(let failure): "cannot sync: \(failure)"
        case .library(let error): error.description
        case .notLoggedIn: "no sync account"
        case .unreadableLogin(let path, let problem): "the sync login in \(path) is unusable (\(problem))"
        case .busy(let path, let after):
            "another feedsh has been syncing this library for \(after.components.seconds) s (it holds \(path)); "
                + "try again when it is done"
        case .lock(let path, let problem): "cannot take the sync lock \(path): \(problem)"
        }
    }
}

/// Device IDs as gpodder.net takes them in a URL path: letters, digits, `.`, `-`
/// and `_`, at most 64.
public enum DeviceName {
    public static func validate(_ name: String) throws(SyncError) -> String {
        let allowed = name.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
        }
        guard !name.isEmpty, name.count <= 64, allowed else { throw .badDeviceName(name) }
        return name
    }
}
