import Foundation
import HTTPSupport
import Hummingbird
import NIOCore
import NIOPosix
import Synchronization

/// `/media/{podcast}/{file}`: the complete files of the download folder, with
/// HEAD, single ranges (206, 416), If-Range and a strong ETag. Nothing else is
/// served: no `.part` or sidecar, no hidden file, no path with `..`, an encoded
/// slash or a symbolic link, nothing outside the folder.
struct MediaFiles: Sendable {
    let root: URL

    /// The file a request path names, when it is one `serve` may send.
    static func file(for requestPath: String, root: URL) -> String? {
        guard requestPath.hasPrefix("/media/") else { return nil }
        let encoded = requestPath.dropFirst("/media/".count).split(separator: "/", omittingEmptySubsequences: false)
        guard encoded.count == 2 else { return nil }
        var names: [String] = []
        for part in encoded {
            // An encoded slash or backslash would be a path inside one segment.
            let lowered = part.lowercased()
            guard !lowered.contains("%2f"), !lowered.contains("%5c"), !lowered.contains("%00"),
                let name = part.removingPercentEncoding, !name.isEmpty, !name.hasPrefix("."),
                !name.contains("/"), !name.contains("\\"), !name.contains("\0")
            else { return nil }
            names.append(name)
        }
        guard !names[1].hasSuffix(".part"), !names[1].hasSuffix(".part.json") else { return nil }
        let folder = root.path + "/" + names[0]
        let file = folder + "/" + names[1]
        // lstat: the folder a directory and the file a regular file, neither a link.
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return file
    }

    func respond(_ request: Request, context: ServeContext) async throws -> Response {
        guard let path = Self.file(for: request.uri.path, root: root) else { throw HTTPError(.notFound) }
        var info = stat()
        guard stat(path, &info) == 0 else { throw HTTPError(.notFound) }
        let size = Int(info.st_size)
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        // Strong: the file's size and modification time to the nanosecond, which a
        // finished download (renamed into place once) keeps.
        let tag =
            "\"\(String(size, radix: 16))-\(String(info.st_mtim.tv_sec, radix: 16)).\(String(info.st_mtim.tv_nsec, radix: 16))\""
        var headers: HTTPFields = [
            .contentType: MediaTypes.type(ofExtension: (path as NSString).pathExtension), .eTag: tag,
            .lastModified: HTTPDate.format(modified),
            .acceptRanges: "bytes",
        ]
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag || $0 == "*" })
        {
            return Response(status: .notModified, headers: headers)
        }
        var rangeHeader = request.headers[.range]
        // If-Range: the range only while the file is the one the client has.
        if let condition = request.headers[.ifRange], condition != tag, condition != HTTPDate.format(modified) {
            rangeHeader = nil
        }
        switch ByteRangeRequest(header: rangeHeader, length: size) {
        case .none:
            headers[.contentLength] = String(size)
            guard size > 0 else { return Response(status: .ok, headers: headers) }
            return Response(
                status: .ok,
                headers: headers,
                body: try Self.body(of: path, range: 0..<size, on: context.channel)
            )
        case .satisfiable(let range):
            headers[.contentLength] = String(range.count)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
            return Response(
                status: .partialContent,
                headers: headers,
                body: try Self.body(of: path, range: range, on: context.channel)
            )
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
    }
}

extension MediaFiles {
    /// The bytes `range` of the file at `path`, a chunk at a time, each read only
    /// once `channel` has taken the last (its event loop has handled the write and
    /// the connection is writable again). A client that stops reading then holds
    /// a chunk or two, not a read-ahead: Hummingbird's FileIO (NIO's FileChunks)
    /// read megabytes ahead for each answer, and writes piled up faster than a
    /// busy event loop said the socket was full (150 stalled clients: 570 MB of
    /// buffers, heaptrack).
    static func body(of path: String, range: Range<Int>, on channel: any Channel, chunk: Int = 128 * 1024) throws
        -> ResponseBody
    {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw HTTPError(.notFound) }
        let file = OpenFile(descriptor)
        return ResponseBody(contentLength: range.count) { writer in
            defer { file.close() }
            var offset = range.lowerBound
            // Chunks written since the event loop last said the connection takes
            // more: at most two ride unconfirmed, so a fast client costs one hop
            // to the event loop every 256 KiB and a stalled one holds that much.
            var unconfirmed = 0
            while offset < range.upperBound {
                if unconfirmed >= 2 || !channel.isWritable {
                    // The writes before have reached the channel (the event loop
                    // runs tasks in order), and the channel wants more.
                    while try await !channel.eventLoop.submit({ channel.isWritable }).get() {
                        guard channel.isActive else { throw ChannelError.ioOnClosedChannel }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    unconfirmed = 0
                }
                let count = min(chunk, range.upperBound - offset)
                let start = offset
                let buffer = try await NIOThreadPool.singleton.runIfActive {
                    var buffer = ByteBufferAllocator().buffer(capacity: count)
                    let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
                        max(0, pread(file.descriptor, bytes.baseAddress, count, off_t(start)))
                    }
                    // Shorter than a moment ago: the answer cannot be whole.
                    guard read > 0 else { throw HTTPError(.internalServerError) }
                    return buffer
                }
                try await writer.write(buffer)
                unconfirmed += 1
                offset += buffer.readableBytes
            }
            try await writer.finish(nil)
        }
    }
}

/// An open file, closed once whichever way its answer ends (or is never
/// written, for a HEAD); only read with pread at explicit offsets, so the thread
/// pool's reads may share it.
private final class OpenFile: Sendable {
    let descriptor: Int32
    private let closed = Atomic<Bool>(false)

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { _ = Glibc.close(descriptor) }
    }

    deinit { close() }
}

/// The types podcast apps expect for the files feedsh downloads.
public enum MediaTypes {
    /// `audio/mpeg` for `mp3`, and so on; `application/octet-stream` for others.
    public static func type(ofExtension ext: String) -> String {
        switch ext.lowercased() {
        case "mp3": "audio/mpeg"
        case "m4a", "mp4", "m4b": "audio/mp4"
        case "aac": "audio/aac"
        case "ogg", "oga": "audio/ogg"
        case "opus": "audio/opus"
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        case "m4v": "video/mp4"
        case "webm": "video/webm"
        default: "application/octet-stream"
        }
    }
}
