import Foundation
import HTTPSupport
import Hummingbird

/// `/media/{podcast}/{file}`: the complete files of the download folder, with
/// HEAD, single ranges (206, 416), If-Range and a strong ETag. Nothing else is
/// served: no `.part` or sidecar, no hidden file, no path with `..`, an encoded
/// slash or a symbolic link, nothing outside the folder.
struct MediaFiles: Sendable {
    let root: URL
    let files = FileIO()

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

    func respond(_ request: Request, context: BasicRequestContext) async throws -> Response {
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
            return Response(status: .ok, headers: headers, body: try await files.loadFile(path: path, context: context))
        case .satisfiable(let range):
            headers[.contentLength] = String(range.count)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
            let body = try await files.loadFile(
                path: path,
                range: range.lowerBound...(range.upperBound - 1),
                context: context
            )
            return Response(status: .partialContent, headers: headers, body: body)
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
    }
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
