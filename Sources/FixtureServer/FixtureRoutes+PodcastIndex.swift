import Crypto
import FixtureData
import Foundation
import Hummingbird
import NIOCore

/// The Podcast Index's `/api/1.0/search/byterm?q=TERM[&max=N]`, checking its
/// authentication as the real API does:
///
/// - `User-Agent` must be sent;
/// - `X-Auth-Key` must be ``FixtureServer/podcastIndexKey``;
/// - `X-Auth-Date` must be Unix seconds within 3 minutes of now;
/// - `Authorization` must be the lowercase hex SHA-1 of key, secret and date.
///
/// Anything else is a 401 with the Index's JSON error. The feeds
/// (`Fixtures/podcastindex/search.json`) are those whose title or author contain
/// the term, their URLs pointing here; the body faults (`drop`, `short`) apply.
extension FixtureRoutes {
    func podcastIndexSearch(_ request: Request, fault: Fault) -> Response {
        if let refusal = Self.podcastIndexRefusal(request.headers) {
            return .json(status: .unauthorized, ["status": "false", "description": refusal])
        }
        let query = request.uri.queryParameters
        guard let term = query.get("q"), !term.isEmpty else {
            return .json(status: .badRequest, ["status": "false", "description": "q is required"])
        }
        let max = min(Swift.max(query.get("max").flatMap { Int($0) } ?? 10, 1), 1000)
        let text = Self.servedHere(
            String(decoding: FixtureFiles.all["podcastindex/search.json"] ?? [], as: UTF8.self),
            host: request.head.authority
        )
        guard var object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let feeds = object["feeds"] as? [[String: Any]]
        else { return .json(status: .internalServerError, ["status": "false"]) }
        let needle = term.lowercased()
        let kept = feeds.filter { feed in
            ["title", "author"].contains { (feed[$0] as? String)?.lowercased().contains(needle) == true }
        }.prefix(max)
        object["feeds"] = Array(kept)
        object["count"] = kept.count
        object["query"] = term
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data()
        return Self.body(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            range: 0..<data.count,
            fault: fault,
            rate: nil
        ) { range, buffer in
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: range)
        }
    }

    /// Why the request's authentication is refused, in the Index's words; nil when
    /// it is good.
    static func podcastIndexRefusal(_ headers: HTTPFields) -> String? {
        guard headers[.userAgent]?.isEmpty == false else { return "a User-Agent is required" }
        guard let key = headers[.init("X-Auth-Key")!], key == FixtureServer.podcastIndexKey else {
            return "Authorization header is invalid: unknown X-Auth-Key"
        }
        guard let dateText = headers[.init("X-Auth-Date")!], let date = Int64(dateText),
            abs(Double(date) - Date().timeIntervalSince1970) <= 180
        else { return "Authorization header is invalid: X-Auth-Date is missing or not within 3 minutes" }
        let expected = Insecure.SHA1.hash(data: Data((key + FixtureServer.podcastIndexSecret + dateText).utf8))
            .map { String(format: "%02x", $0) }.joined()
        guard headers[.authorization] == expected else { return "Authorization header is invalid" }
        return nil
    }
}
