import FixtureData
import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// Images from `Fixtures/images/`, with an ETag, Last-Modified and 304 for a
    /// matching `If-None-Match` or `If-Modified-Since`.
    ///
    /// `/images/NAME` serves that file; `/images/met/ID.EXT` and every `/artwork/…`
    /// path serve the fixture of the same format. `/images/not-an-image.png` is
    /// text/plain, `/images/lying.png` an HTML page labelled image/png, and any other
    /// name is 404.
    func image(_ request: Request, path: Substring, fault: Fault) -> Response {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let contentType: String
        let bytes: [UInt8]
        switch name {
        case "not-an-image.png":
            (contentType, bytes) = ("text/plain; charset=utf-8", Array("this is not an image\n".utf8))
        case "lying.png":
            (contentType, bytes) = ("image/png", Array("<!DOCTYPE html><html><body>Not found</body></html>\n".utf8))
        default:
            let file: String? =
                if path.hasPrefix("/artwork/") {
                    "artwork.jpg"
                } else if path.hasPrefix("/images/met/"), name != "missing.jpg" {
                    ["jpg": "artwork.jpg", "png": "photo.png", "gif": "tiles.gif", "webp": "swatch.webp"][
                        (name as NSString).pathExtension
                    ]
                } else {
                    name
                }
            guard let file, let data = FixtureFiles.all["images/\(file)"] else {
                return .json(status: .notFound, ["errorMessage": "no image \(name)"])
            }
            let types = ["jpg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp"]
            (contentType, bytes) = (types[(file as NSString).pathExtension] ?? "application/octet-stream", data)
        }
        // The version (`etag=V` fault) changes the validators, as a re-published image would.
        let etag = "\"img-\(bytes.count)-\(fault.version)\""
        let lastModified = httpDate(Date(timeIntervalSince1970: 1_790_000_000 + Double(fault.version) * 86_400))
        var headers: HTTPFields = [.eTag: etag, .lastModified: lastModified]
        let ifNoneMatch = request.headers[.ifNoneMatch]
        if ifNoneMatch == etag || (ifNoneMatch == nil && request.headers[.ifModifiedSince] == lastModified) {
            return Response(status: .notModified, headers: headers, body: .init())
        }
        headers[.contentType] = contentType
        headers[.contentLength] = String(bytes.count)
        if request.method == .head {
            return Response(status: .ok, headers: headers, body: .init())
        }
        let rate = fault.rate ?? mediaRate
        let body = ResponseBody(contentLength: bytes.count) { writer in
            try await Self.stream(0..<bytes.count, rate: rate, to: &writer) { range, buffer in
                bytes[range].withUnsafeBytes { buffer.copyMemory(from: $0) }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// iTunes music search: songs whose title, artist or album contains the term.
    func musicSearch(term: String?, limit: String?, host: String?) -> Response {
        guard let term, !term.isEmpty else {
            return .json(status: .badRequest, ["errorMessage": "Invalid value(s) for key(s): [term]"])
        }
        let limit = min(max(limit.flatMap { Int($0) } ?? 50, 1), 200)
        let text = Self.servedHere(
            String(decoding: FixtureFiles.all["itunes/search-music.json"] ?? [], as: UTF8.self),
            host: host
        )
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let all = object["results"] as? [[String: Any]]
        else { return .json(status: .internalServerError, ["errorMessage": "bad music fixture"]) }
        let needle = term.lowercased()
        let results = all.filter { record in
            ["trackName", "artistName", "collectionName"].contains {
                (record[$0] as? String)?.lowercased().contains(needle) == true
            }
        }
        let kept = Array(results.prefix(limit))
        let body: [String: Any] = ["resultCount": kept.count, "results": kept]
        return .itunes(
            (try? JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes])) ?? Data()
        )
    }

    private static func metObjects() -> [[String: Any]] {
        guard let bytes = FixtureFiles.all["met/objects.json"] else { return [] }
        return (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]]) ?? []
    }

    /// The Met's search: objects whose title, artist, medium or tags contain `q`,
    /// narrowed by `medium` and `hasImages=true`. No hits is
    /// `{"total":0,"objectIDs":null}`, as there.
    func metSearch(query: String?, medium: String?, hasImages: String?) -> Response {
        guard let query, !query.isEmpty else {
            return .json(status: .badRequest, ["message": "q is required"])
        }
        let needle = query.lowercased()
        let hits = Self.metObjects().filter { object in
            let tags = (object["tags"] as? [[String: Any]])?.compactMap { $0["term"] as? String } ?? []
            let fields = ["title", "artistDisplayName", "medium"].compactMap { object[$0] as? String } + tags
            guard fields.contains(where: { $0.lowercased().contains(needle) }) else { return false }
            if let medium, !medium.isEmpty,
                (object["medium"] as? String)?.lowercased().contains(medium.lowercased()) != true
            {
                return false
            }
            if hasImages == "true", (object["primaryImage"] as? String ?? "").isEmpty { return false }
            return true
        }
        let ids = hits.compactMap { $0["objectID"] as? Int }
        let body: [String: Any] = ["total": ids.count, "objectIDs": ids.isEmpty ? NSNull() : ids]
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: (try? JSONSerialization.data(withJSONObject: body)) ?? Data()))
        )
    }

    /// One Met object. 436107 always fails with 500 (one broken object in a search);
    /// an unknown id is 404 with `{"message":"ObjectID not found"}`.
    func metObject(id: String, host: String?) -> Response {
        guard let number = Int(id) else {
            return .json(status: .badRequest, ["message": "Not a valid object"])
        }
        if number == 436107 {
            return .json(status: .internalServerError, ["message": "Internal Server Error"])
        }
        guard let object = Self.metObjects().first(where: { $0["objectID"] as? Int == number }),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
        else {
            return .json(status: .notFound, ["message": "ObjectID not found"])
        }
        let text = Self.servedHere(String(decoding: data, as: UTF8.self), host: host)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
