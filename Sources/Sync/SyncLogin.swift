import Foundation
import Library
import SystemPackage

/// A sync account and its password, kept in a file of their own beside the
/// library (never in it): readable by its owner only (0600), written whole or not
/// at all.
public struct SyncLogin: Codable, Sendable, Equatable {
    public var account: SyncAccount
    public var password: String

    public init(account: SyncAccount, password: String) {
        self.account = account
        self.password = password
    }

    /// The file for the library at `libraryPath`: `LIBRARY-sync.json`, beside it as
    /// SQLite's `-wal` and `-shm` are.
    public static func file(besideLibrary libraryPath: String) -> FilePath {
        FilePath(libraryPath + "-sync.json")
    }

    /// The login kept at `file`; nil when there is none.
    public static func load(_ file: FilePath) throws(SyncError) -> SyncLogin? {
        guard let data = FileManager.default.contents(atPath: file.string) else { return nil }
        do {
            return try JSONDecoder().decode(SyncLogin.self, from: data)
        } catch {
            throw .unreadableLogin(path: file.string, problem: "\(error)")
        }
    }

    /// Writes it to `file`, 0600 from the start (``Library/PrivateFile``).
    public func save(_ file: FilePath) throws(SyncError) {
        do {
            try PrivateFile.write(try JSONEncoder().encode(self), to: file.string)
        } catch {
            throw .unreadableLogin(path: file.string, problem: "cannot write it: \(error)")
        }
    }

    /// Removes the file at `file`; true when there was one.
    public static func remove(_ file: FilePath) -> Bool { unlink(file.string) == 0 }
}
