import Foundation
import Hummingbird
import NIOCore

/// What the sync API keeps: per user, the subscriptions (of all devices, as
/// opodsync does) and every episode action uploaded, in memory.
struct SyncStore {
    struct User {
        /// Each feed's latest change: subscribed or not, and when (server seconds).
        var subscriptions: [String: (subscribed: Bool, at: Int64)] = [:]
        /// The actions as uploaded (each a JSON object's bytes), with their own
        /// timestamps in Unix seconds, in upload order.
        var actions: [(at: Int64, json: Data)] = []
    }

    var users: [String: User] = [:]
    /// The sessions the password opened: `sessionid` cookie value to user name.
    var sessions: [String: String] = [:]
}

/// The gpodder.net API v2 as feedsh uses it, for `--demo` and for faults opodsync
/// cannot make. Basic authentication with any user name and the password
/// ``FixtureServer/syncPassword``; what it stores lives as long as the server.
/// As gpodder.net does, a request with the password opens a session, answered
/// with a `sessionid` cookie that stands for the password afterwards
/// (``FixtureServer/endSyncSessions()`` ends them all).
///
/// - `POST /api/2/auth/USER/login.json`, `POST /api/2/devices/USER/DEVICE.json`;
/// - `GET /api/2/subscriptions/USER/DEVICE.json?since=T`: `add`/`remove` changed at
///   or after T, and the server's clock as `timestamp`;
/// - `POST /api/2/subscriptions/USER/DEVICE.json`: `{add, remove}`; each URL is
///   sanitized as gpodder.net does (surrounding spaces, and here `utm_*` query
///   items, go) and the changed ones come back in `update_urls`;
/// - `GET /api/2/episodes/USER.json?since=T`: actions stamped at or after T, oldest
///   first, at most 1,000; a full page's `timestamp` is its last action's (as
///   gpodder.net pages), a short page's the server's clock;
/// - `POST /api/2/episodes/USER.json`: a list of actions, stored; with the
///   `drop-upload` fault they are stored and the connection closes unanswered.
///
/// Replies go through the body faults (`drop`, `short`), so a truncated reply can
/// be asked for.
extension FixtureRoutes {
    static let syncPageSize = 1000

    func registerSync(on router: Router<FixtureRequestContext>) {
        router.post("/api/2/auth/:user/login.json") { request, context in
            self.syncCall(request, context, user: context.parameters.get("user")) { _ in Data("{}".utf8) }
        }
        router.post("/api/2/devices/:user/:device") { request, context in
            self.syncCall(request, context, user: context.parameters.get("user")) { _ in Data("{}".utf8) }
        }
        router.get("/api/2/subscriptions/:user/:device") { request, context in
            let since = request.uri.queryParameters.get("since").flatMap { Int64($0) } ?? 0
            return self.syncCall(request, context, user: context.parameters.get("user")) { user in
                Self.subscriptions(of: user, since: since)
            }
        }
        router.post("/api/2/subscriptions/:user/:device") { request, context -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
                return .json(status: .badRequest, ["errorMessage": "not a JSON object"])
            }
            let add = object["add"] as? [String] ?? []
            let remove = object["remove"] as? [String] ?? []
            return self.syncCall(request, context, user: context.parameters.get("user")) { user in
                Self.changeSubscriptions(of: &user, add: add, remove: remove)
            }
        }
        router.get("/api/2/episodes/:user") { request, context in
            let since = request.uri.queryParameters.get("since").flatMap { Int64($0) } ?? 0
            return self.syncCall(request, context, user: context.parameters.get("user")) { user in
                Self.actions(of: user, since: since)
            }
        }
        router.post("/api/2/episodes/:user") { request, context -> Response in
            let body = try await request.body.collect(upTo: 64 << 20)
            guard let actions = Self.storable(Data(buffer: body)) else {
                return .json(status: .badRequest, ["errorMessage": "not a JSON list of actions"])
            }
            // Stored, then the head and no body: the connection closes unanswered.
            var context = context
            if context.fault.dropUpload { context.fault.dropAfter = 0 }
            return self.syncCall(request, context, user: context.parameters.get("user")) { user in
                user.actions += actions
                return Self.encode(["timestamp": Self.now(), "update_urls": [Any]()])
            }
        }
    }

    /// What the fixture holds for `user`: subscribed feeds and the number of
    /// actions stored.
    func syncActions(user: String) -> [Data] {
        syncStore.withLock { ($0.users[user] ?? SyncStore.User()).actions.map(\.json) }
    }

    func syncState(user: String) -> (subscriptions: [String], actions: Int) {
        syncStore.withLock { store in
            let stored = store.users[user] ?? SyncStore.User()
            return (stored.subscriptions.filter(\.value.subscribed).keys.sorted(), stored.actions.count)
        }
    }

    /// Stores actions (a JSON list, as a client uploads it) as another device would
    /// have uploaded them; false when `json` is no list of objects.
    func addSyncActions(_ json: Data, user: String) -> Bool {
        guard let actions = Self.storable(json) else { return false }
        syncStore.withLock { $0.users[user, default: SyncStore.User()].actions += actions }
        return true
    }

    /// Each action of an uploaded list with its own time (the server's clock when
    /// it has none), or nil when the body is no list of objects.
    private static func storable(_ body: Data) -> [(at: Int64, json: Data)]? {
        guard let list = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]] else { return nil }
        let now = now()
        return list.map { action in
            ((action["timestamp"] as? String).flatMap(seconds) ?? now, encode(action))
        }
    }

    private static func encode(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes, .sortedKeys]))
            ?? Data("{}".utf8)
    }

    /// Checks the password, runs `body` on the user's data and answers the JSON it
    /// gives (through the body faults).
    private func syncCall(
        _ request: Request,
        _ context: FixtureRequestContext,
        user name: String?,
        _ body: (inout SyncStore.User) -> Data
    ) -> Response {
        let user = String((name ?? "").replacingOccurrences(of: ".json", with: "").removingPercentEncoding ?? "")
        var headers: HTTPFields = [.contentType: "application/json"]
        if Self.syncPasswordGiven(request, user: user) {
            let session = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            syncStore.withLock { $0.sessions[session] = user }
            headers[.setCookie] = "sessionid=\(session); path=/; HttpOnly"
        } else {
            let session = Self.sessionID(request)
            guard let session, syncStore.withLock({ $0.sessions[session] }) == user else {
                return .json(status: .unauthorized, ["errorMessage": "wrong user name or password"])
            }
        }
        let data = syncStore.withLock { store in body(&store.users[user, default: SyncStore.User()]) }
        return Self.body(
            status: .ok,
            headers: headers,
            range: 0..<data.count,
            fault: context.fault,
            rate: nil
        ) { range, buffer in
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: range)
        }
    }

    /// Ends every session: the next request must carry the password again.
    func endSyncSessions() {
        syncStore.withLock { $0.sessions.removeAll() }
    }

    /// The `sessionid` of the request's `Cookie` header.
    private static func sessionID(_ request: Request) -> String? {
        for pair in (request.headers[.cookie] ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == "sessionid" { return parts[1] }
        }
        return nil
    }

    private static func syncPasswordGiven(_ request: Request, user: String) -> Bool {
        request.headers[.authorization] == basicAuthorization(user: user, password: FixtureServer.syncPassword)
    }

    private static func subscriptions(of user: SyncStore.User, since: Int64) -> Data {
        let changed = user.subscriptions.filter { $0.value.at >= since }
        return encode([
            "add": changed.filter(\.value.subscribed).keys.sorted(),
            "remove": changed.filter { !$0.value.subscribed }.keys.sorted(),
            "timestamp": now(),
        ])
    }

    private static func changeSubscriptions(of user: inout SyncStore.User, add: [String], remove: [String]) -> Data {
        let now = now()
        var rewritten: [[String]] = []
        for (list, subscribed) in [(add, true), (remove, false)] {
            for url in list {
                let clean = sanitize(url)
                if clean != url { rewritten.append([url, clean]) }
                user.subscriptions[clean] = (subscribed, now)
            }
        }
        return encode(["timestamp": now, "update_urls": rewritten])
    }

    /// One page of actions, written from the stored bytes.
    private static func actions(of user: SyncStore.User, since: Int64) -> Data {
        let page = user.actions.enumerated().filter { $0.element.at >= since }
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .prefix(syncPageSize)
        let timestamp = page.count == syncPageSize ? page.last?.element.at ?? now() : now()
        var data = Data(#"{"actions":["#.utf8)
        for (index, action) in page.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            data.append(action.element.json)
        }
        data.append(Data(#"],"timestamp":\#(timestamp)}"#.utf8))
        return data
    }

    /// A URL as gpodder.net keeps it: trimmed, and here without `utm_*` tracking
    /// items in its query.
    static func sanitize(_ url: String) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard var components = URLComponents(string: trimmed), let items = components.queryItems else {
            return trimmed
        }
        let kept = items.filter { !$0.name.hasPrefix("utm_") }
        guard kept.count != items.count else { return trimmed }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.string ?? trimmed
    }

    /// `2026-11-25T10:00:00` (UTC, as gPodder writes it) or with `Z`, as seconds.
    static func seconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        let zoned = text.hasSuffix("Z") || text.contains("+") ? text : text + "Z"
        return formatter.date(from: zoned).map { Int64($0.timeIntervalSince1970) }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
