import Foundation
import NIOCore
import Processes

extension Player {
    /// The chapters mpv finds inside a file (its `chapter-list`: an MP3's ID3
    /// `CHAP` frames, an M4A's or Matroska's chapters), for an episode whose feed
    /// names none; in time order, titles as the file has them (unsanitized).
    ///
    /// mpv is started paused, without terminal, sound or picture; it is asked
    /// once the file is open (its `chapters` count known) and then told to quit. Empty
    /// for a player that is not mpv, or a file mpv cannot open; an mpv that does
    /// not answer within `timeout` is killed.
    public static func chapters(
        inFile path: String,
        with player: PlayerCommand,
        timeout: Duration = .seconds(10)
    ) async throws(PlaybackError) -> [PlayRequest.Chapter] {
        guard player.isMPV else { return [] }
        guard ForegroundProcess.find(player.program) != nil else { throw .playerNotFound(player) }
        let directory = try privateDirectory(for: player)
        let socket = directory + "/mpv.sock"
        defer {
            unlink(socket)
            rmdir(directory)
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let options = [
            "--input-ipc-server=\(socket)", "--pause", "--no-terminal", "--ao=null", "--vo=null",
            "--no-resume-playback", "--idle=no",
        ]
        guard
            let process = ForegroundProcess.start(
                arguments: player.arguments(source: path, options: options),
                input: null,
                output: null
            )
        else {
            throw .cannotStart(player, reason: "it could not be started")
        }
        let exit = Task { await process.exit() }
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        let chapters = await ask(socket: socket, exit: exit)
        if chapters == nil { process.signal(SIGTERM) }
        _ = await exit.value
        return chapters ?? []
    }

    /// Connects to mpv's socket, waits for the file to be open, reads
    /// `chapter-list` and asks mpv to quit; nil when mpv ended (or never listened)
    /// before it answered.
    private static func ask(socket: String, exit: Task<ForegroundProcess.Exit, Never>) async
        -> [PlayRequest.Chapter]?
    {
        let exited = ExitWatch(exit)
        var channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>?
        while channel == nil, !exited.done {
            channel = try? await connect(socket)
            if channel == nil { try? await Task.sleep(for: .milliseconds(20)) }
        }
        guard let channel else { return nil }
        let listID = 71
        var chapters: [PlayRequest.Chapter]?
        do {
            try await channel.executeThenClose { inbound, outbound in
                // `chapters` (their count) is unavailable until playback is set up,
                // which is after the file's chapters are read. (`duration` is known
                // earlier, from the demuxer: asking then found none, now and then.)
                try await outbound.write(ByteBuffer(string: MPVCommand.observe("chapters", id: 1).line))
                var asked = false
                for try await line in inbound {
                    let bytes = Array(line.readableBytesView)
                    switch MPVMessage.parse(bytes) {
                    case .propertyChange(name: "chapters", value: 0)? where !asked:
                        asked = true
                        chapters = []
                        try await outbound.write(ByteBuffer(string: MPVCommand.quit.line))
                    case .propertyChange(name: "chapters", value: .some)? where !asked:
                        asked = true
                        try await outbound.write(
                            ByteBuffer(string: MPVCommand.get("chapter-list", requestID: listID).line)
                        )
                    case .reply(id: listID, _, _)?:
                        chapters = chapterList(bytes)
                        try await outbound.write(ByteBuffer(string: MPVCommand.quit.line))
                    case .endFile?:
                        // mpv could not open it (or it ended): no chapters to read.
                        if chapters == nil { chapters = [] }
                        try await outbound.write(ByteBuffer(string: MPVCommand.quit.line))
                    default: break
                    }
                }
            }
        } catch {
            // The socket closed under us: what was read stands.
        }
        return chapters
    }

    /// `{"data": [{"title": "…", "time": 12.5}, …], "request_id": N}`: the
    /// chapters, in time order; an entry without a time is left out.
    static func chapterList(_ line: [UInt8]) -> [PlayRequest.Chapter] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let entries = object["data"] as? [[String: Any]]
        else { return [] }
        return entries.compactMap { entry in
            guard let time = (entry["time"] as? NSNumber)?.doubleValue, time.isFinite, time >= 0 else { return nil }
            return PlayRequest.Chapter(start: time, title: entry["title"] as? String ?? "")
        }.sorted { $0.start < $1.start }
    }
}
