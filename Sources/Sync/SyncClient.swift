import AsyncHTTPClient
import FeedKit
import Foundation
import HTTPSupport
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization
import WebBasics

/// Which API a server speaks.
public enum SyncFlavor: String, Codable, Sendable {
    /// gpodder.net API v2 (`/api/2/...`), as gpodder.net, opodsync and mygpo serve it.
    case gpodder
    /// Nextcloud gPodder Sync (`/index.php/apps/gpoddersync/...`).
    case nextcloud
}

/// An account on a sync server: where, who, and as which device.
public struct SyncAccount: Codable, Sendable, Equatable {
    public var server: URL
    public var user: String
    public var device: String
    public var flavor: SyncFlavor

    public init(server: URL, user: String, device: String, flavor: SyncFlavor) {
        self.server = server
        self.user = user
        self.device = device
        self.flavor = flavor
    }

    /// The name of this account's sync cursor in the library: another server,
    /// user or device starts from the beginning.
    public var key: String { "\(server.absoluteString)|\(user)|\(device)|\(flavor.rawValue)" }
}

/// The subscription changes a server reports since a timestamp.
public struct SubscriptionDelta: Sendable, Equatable {
    public var add: [String]
    public var remove: [String]
    /// The server's timestamp, for the next `since`.
    public var timestamp: Int64
}

/// The gpodder.net API v2 and Nextcloud gPodder Sync over HTTP: JSON both ways,
/// and every failure a ``SyncError`` that names the URL or host.
///
/// Nextcloud takes Basic authentication on every request. A gpodder.net server
/// answers it with a `sessionid` cookie, which this client sends in the
/// password's place from then on, as gPodder's own client does: opodsync checks a
/// password with bcrypt on every request that carries one (about 80 ms, longer
/// than storing a page of 1,000 actions). A request the session no longer
/// covers (401 or 403) is sent once more with the password. The session lives as
/// long as the client (one sync) and is never written down.
public struct SyncClient: Sendable {
    public let account: SyncAccount
    private let password: String
    private let session = SessionCookie()
    private let clients: HTTPClientPool
    private let userAgent: String
    private let timeout: Duration

    /// How many episode actions one upload carries, and the page size at which a
    /// download asks again (gpodder.net's own limit).
    public static let pageSize = 1000

    public init(
        account: SyncAccount,
        password: String,
        clients: HTTPClientPool,
        userAgent: String,
        timeout: Duration = .seconds(60)
    ) {
        // It follows moves itself (``send(_:_:body:hops:)``), a POST's as a POST.
        precondition(!clients.followsRedirects, "SyncClient needs an HTTPClientPool that does not follow redirects")
        self.account = account
        self.password = password
        self.clients = clients
        self.userAgent = userAgent
        self.timeout = timeout
    }

    // MARK: Endpoints

    private var user: String { Self.pathSegment(account.user) }

    func endpoint(_ path: String, since: Int64? = nil) -> URL {
        var text = account.server.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += "/" + path
        if let since { text += "?since=\(since)" }
        return URL(string: text) ?? account.server
    }

    private var subscriptionsPath: String {
        switch account.flavor {
        case .gpodder: "api/2/subscriptions/\(user)/\(account.device).json"
        case .nextcloud: "index.php/apps/gpoddersync/subscriptions"
        }
    }

    private var episodesPath: String {
        switch account.flavor {
        case .gpodder: "api/2/episodes/\(user).json"
        case .nextcloud: "index.php/apps/gpoddersync/episode_action"
        }
    }

    // MARK: Calls

    /// Checks the password and makes the device known to the server (gpodder.net
    /// lists a device's subscriptions under it). Nextcloud has no devices: a read
    /// of the subscriptions checks the password.
    public func login() async throws(SyncError) {
        switch account.flavor {
        case .gpodder:
            _ = try await send(.POST, endpoint("api/2/auth/\(user)/login.json"), body: Data())
            let device = ["caption": "feedsh on \(ProcessInfo.processInfo.hostName)", "type": "server"]
            _ = try await send(.POST, endpoint("api/2/devices/\(user)/\(account.device).json"), json: device)
        case .nextcloud:
            _ = try await subscriptions(since: Int64(Date().timeIntervalSince1970))
        }
    }

    /// The subscriptions added and removed at or after `since`.
    public func subscriptions(since: Int64) async throws(SyncError) -> SubscriptionDelta {
        let url = endpoint(subscriptionsPath, since: since)
        let object = try object(from: try await send(.GET, url), url: url)
        return SubscriptionDelta(
            add: try strings(object["add"], at: "$.add", url: url),
            remove: try strings(object["remove"], at: "$.remove", url: url),
            timestamp: try timestamp(object, url: url)
        )
    }

    /// Uploads subscription changes; returns the server's timestamp and the URLs it
    /// rewrote (`update_urls`: `[old, new]`, the new one to use from now on).
    public func uploadSubscriptions(add: [String], remove: [String]) async throws(SyncError) -> (
        timestamp: Int64?, rewritten: [(old: String, new: String)]
    ) {
        let url =
            account.flavor == .gpodder
            ? endpoint(subscriptionsPath) : endpoint("index.php/apps/gpoddersync/subscription_change/create")
        let reply = try await send(.POST, url, json: ["add": add, "remove": remove])
        // Nextcloud answers with an empty body or a timestamp only.
        guard let object = try acknowledgement(reply, url: url) else { return (nil, []) }
        let pairs = (object["update_urls"] as? [Any] ?? []).compactMap { pair -> (old: String, new: String)? in
            guard let pair = pair as? [Any], pair.count == 2, let old = pair[0] as? String,
                let new = pair[1] as? String,
                !new.isEmpty, old != new
            else { return nil }
            return (old, new)
        }
        return (ActionPage.integer(object["timestamp"]), pairs)
    }

    /// Episode actions stamped at or after `since` (Nextcloud: after), one page.
    public func actions(since: Int64) async throws(SyncError) -> ActionPage {
        let url = endpoint(episodesPath, since: since)
        return try ActionPage.decode(try await send(.GET, url), url: url)
    }

    /// Uploads episode actions in one request (at most ``pageSize``).
    public func upload(_ actions: [EpisodeAction]) async throws(SyncError) {
        let url =
            account.flavor == .gpodder
            ? endpoint(episodesPath) : endpoint("index.php/apps/gpoddersync/episode_action/create")
        _ = try acknowledgement(try await send(.POST, url, json: actions.map(\.wire)), url: url)
    }

    /// An upload's reply: empty, or a JSON object. Anything else (a login page a
    /// proxy put in the server's place, with 200) is not an acknowledgement, and
    /// what was sent stays in the outbox.
    private func acknowledgement(_ reply: Data, url: URL) throws(SyncError) -> [String: Any]? {
        if reply.allSatisfy({ " \t\r\n".utf8.contains($0) }) { return nil }
        return try object(from: reply, url: url)
    }

    // MARK: HTTP

    /// A request with `json` as its body, encoded by `JSONEncoder` (the actions'
    /// wire form and the small objects alike).
    private func send(_ method: HTTPMethod, _ url: URL, json: some Encodable) async throws(SyncError) -> Data {
        let body: Data
        do {
            body = try JSONEncoder().encode(json)
        } catch {
            throw .badReply(url: url, path: "$", problem: "a request that is not JSON: \(error)")
        }
        return try await send(method, url, body: body)
    }

    /// One request; a 401 is the password refused, any other status outside 2xx
    /// an error with the URL, and a failure to connect one that names the host.
    /// It carries the session cookie when there is one, unless `withPassword`;
    /// a 401 or 403 to the cookie is sent once more with the password.
    ///
    /// Moves are followed here, not by the HTTP client (whose pool must not
    /// follow them): a 307 or 308 on the same origin is sent again as it was,
    /// body and method kept; any other move is an error. A POST answered 301
    /// would otherwise come back as a GET, whose answer was taken as the
    /// acknowledgement: the outbox emptied while the server stored nothing.
    private func send(
        _ method: HTTPMethod,
        _ url: URL,
        body: Data? = nil,
        hops: Int = 0,
        withPassword: Bool = false
    ) async throws(SyncError)
        -> Data
    {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let cookie = account.flavor == .gpodder && !withPassword ? session.value : nil
        if let cookie {
            request.headers.add(name: "Cookie", value: "\(SessionCookie.name)=\(cookie)")
        } else {
            request.headers.add(
                name: "Authorization",
                value: FeedCredentials(user: account.user, password: password).authorization
            )
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let start = ContinuousClock.now
        do {
            let response = try await clients.client(for: url).execute(request, timeout: TimeAmount(timeout))
            let data = Data(buffer: try await response.body.collect(upTo: 64 << 20, within: timeout, since: start))
            switch response.status.code {
            case 200..<300:
                if account.flavor == .gpodder, let set = SessionCookie.sessionID(in: response.headers) {
                    session.value = set
                }
                return data
            case 300..<400:
                let location = response.headers.first(name: "Location")
                if [307, 308].contains(response.status.code), hops < 5,
                    let target = location.flatMap({ URL(string: $0, relativeTo: url)?.absoluteURL }),
                    target.origin == url.origin
                {
                    return try await send(method, target, body: body, hops: hops + 1, withPassword: withPassword)
                }
                throw SyncError.moved(Int(response.status.code), url: url, to: location)
            case 401, 403:
                if let cookie {
                    // The session ended (expired, or the server restarted): once
                    // more with the password, whatever session is set meanwhile.
                    session.forget(cookie)
                    return try await send(method, url, body: body, hops: hops, withPassword: true)
                }
                throw SyncError.refused(user: account.user)
            default: throw SyncError.status(Int(response.status.code), url: url)
            }
        } catch let error as SyncError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .badReply(url: url, path: "$", problem: "more than 64 MB")
        } catch let late as BodyDeadlineExceeded {
            throw .badReply(
                url: url,
                path: "$",
                problem: "too slowly (not whole within \(late.after.components.seconds) s)"
            )
        } catch {
            throw .network(clients.failure(error, url: url))
        }
    }

    private func object(from data: Data, url: URL) throws(SyncError) -> [String: Any] {
        guard let root = try? JSONSerialization.jsonObject(with: data), let object = root as? [String: Any] else {
            throw .badReply(url: url, path: "$", problem: "not a JSON object")
        }
        return object
    }

    private func strings(_ value: Any?, at path: String, url: URL) throws(SyncError) -> [String] {
        guard let list = value as? [Any] else {
            throw .badReply(url: url, path: path, problem: "missing or not a list")
        }
        return list.compactMap { $0 as? String }
    }

    private func timestamp(_ object: [String: Any], url: URL) throws(SyncError) -> Int64 {
        guard let value = ActionPage.integer(object["timestamp"]) else {
            throw .badReply(url: url, path: "$.timestamp", problem: "missing or not a number")
        }
        try ActionTime.checkCursor(value, url: url)
        return value
    }

    /// A user name as one segment of a URL path.
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? text
    }
}

/// The `sessionid` cookie a gpodder.net server set, shared by the copies of one
/// ``SyncClient``.
final class SessionCookie: Sendable {
    static let name = "sessionid"
    private let state = Mutex<String?>(nil)

    var value: String? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Drops `value` unless another request has set a newer one meanwhile.
    func forget(_ value: String) {
        state.withLock { if $0 == value { $0 = nil } }
    }

    /// The `sessionid` value of a `Set-Cookie` in `headers`: nil when there is
    /// none, or it is empty (a logout) or holds more than a cookie's octets
    /// (RFC 6265: printable ASCII less space, quote, comma, semicolon and
    /// backslash; 256 at most).
    static func sessionID(in headers: HTTPHeaders) -> String? {
        for header in headers["Set-Cookie"] {
            let pair = header.prefix { $0 != ";" }
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
            guard name == Self.name else { continue }
            let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let octets = value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"\",;\\".utf8.contains($0) }
            return !value.isEmpty && value.utf8.count <= 256 && octets ? value : nil
        }
        return nil
    }
}
