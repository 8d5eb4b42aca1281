import Background
import Foundation
import Playback

/// Where a running `play` can be reached by another feedsh (`sleep`): a small
/// file beside the control socket, `player.json`, naming the feedsh that plays,
/// mpv's socket and the sleep timer as last set. Written when the player starts
/// and when the timer changes, removed when playback ends.
package struct PlayerLink: Codable, Sendable, Equatable {
    /// The feedsh that plays.
    package var pid: Int32
    /// mpv's JSON IPC socket.
    package var socket: String
    /// What plays: `2:3 Title`.
    package var playing: String
    /// The sleep timer's word (`1800`, `end`, `chapter`), nil without one.
    package var sleep: String?
    /// When a timed sleep stops playback (seconds since 1970).
    package var sleepsAt: Double?

    package init(pid: Int32, socket: String, playing: String, sleep: String?, sleepsAt: Double?) {
        self.pid = pid
        self.socket = socket
        self.playing = playing
        self.sleep = sleep
        self.sleepsAt = sleepsAt
    }

    /// `{control directory}/player.json`.
    package static var path: String { ControlPaths().directory + "/player.json" }

    /// The link of a `play` still running, if any: a file whose feedsh has exited
    /// is removed. Only a file this user owns and no one else may write is read:
    /// where the runtime folder is shared, another user's forged link would
    /// steer `sleep` to a player of theirs.
    package static func current() -> PlayerLink? {
        guard let data = ownedContents(atPath: path),
            let link = try? JSONDecoder().decode(PlayerLink.self, from: data)
        else { return nil }
        guard kill(link.pid, 0) == 0 || errno == EPERM else {
            unlink(path)
            return nil
        }
        return link
    }

    /// The bytes of the regular file at `path` (not through a link), when this
    /// user owns it and neither group nor others may write to it; at most 64 KiB.
    package static func ownedContents(atPath path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == getuid(),
            status.st_mode & 0o022 == 0, status.st_size <= 64 << 10
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count >= 0 ? Data(bytes[..<count]) : nil
    }

    /// Writes the link (0600, by rename, so that a reader never sees half of it).
    package func write() {
        let paths = ControlPaths()
        guard (try? paths.prepare()) != nil, let data = try? JSONEncoder().encode(self) else { return }
        let temporary = Self.path + ".\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        if rename(temporary, Self.path) != 0 { unlink(temporary) }
    }

    /// Removes the link when it is still this process's.
    package static func remove(socket: String) {
        if let data = FileManager.default.contents(atPath: path),
            let link = try? JSONDecoder().decode(PlayerLink.self, from: data), link.socket == socket
        {
            unlink(path)
        }
    }

    /// The timer as this link last heard of it, with the wall seconds left for
    /// a timed one.
    package var timer: (SleepTimer, remaining: Double?)? {
        guard let sleep, let timer = SleepTimer(word: sleep) else { return nil }
        return (timer, sleepsAt.map { max(0, $0 - Date().timeIntervalSince1970) })
    }
}
