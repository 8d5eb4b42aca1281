import Foundation

/// The background feedsh's control protocol: JSON lines over a Unix socket.
///
/// A client sends requests, `{"v": 1, "id": 7, "op": "pause", "ids": ["123"]}`,
/// and gets one reply each, `{"v": 1, "id": 7, "ok": true, "result": {...}}` or
/// `{"v": 1, "id": 7, "ok": false, "error": {"code", "message"}}`. After `subscribe`
/// it also gets events, `{"v": 1, "event": {...}}`. A line that is not a request of
/// this version gets an error reply (with `id` null when it had none) and the
/// connection stays open; a line over ``maximumLine`` bytes closes it.
public enum ControlProtocol {
    public static let version = 1
    /// The longest line a peer may send.
    public static let maximumLine = 1 << 20
}

/// What a client asks.
public struct ControlRequest: Codable, Sendable, Equatable {
    public enum Operation: String, Codable, Sendable, CaseIterable {
        /// Who is there: ``ControlHello``.
        case hello
        /// Every download: `[ControlDownload]`.
        case list
        /// Take over these downloads (continuing their `.part` files).
        case get
        case pause
        case resume
        case cancel
        /// Send download events on this connection from now on.
        case subscribe
    }

    public var v: Int
    public var id: Int
    public var op: Operation
    /// For pause, resume and cancel.
    public var ids: [String]?
    /// For get.
    public var downloads: [HandedDownload]?

    public init(id: Int, op: Operation, ids: [String]? = nil, downloads: [HandedDownload]? = nil) {
        self.v = ControlProtocol.version
        self.id = id
        self.op = op
        self.ids = ids
        self.downloads = downloads
    }
}

/// A download handed to the background process: what it needs to run it and to
/// record it in the library.
public struct HandedDownload: Codable, Sendable, Equatable {
    public var id: String
    public var url: URL
    /// The final file's path (the `.part` beside it).
    public var path: String
    /// How the shell numbered it (`3`, `n1`, `t2`) and its title.
    public var number: String
    public var title: String
    /// The library episode and podcast, when it is one.
    public var episodeID: Int64?
    public var podcastID: Int64?
    /// The podcast's title, for the tables of every shell.
    public var podcast: String?
    /// The length the feed declares, which caps and judges the download.
    public var declaredLength: Int64?
    /// A private feed's `Authorization` header (the socket is in a 0700 folder of the user's).
    public var authorization: String?

    public init(
        id: String,
        url: URL,
        path: String,
        number: String,
        title: String,
        episodeID: Int64? = nil,
        podcastID: Int64? = nil,
        podcast: String? = nil,
        declaredLength: Int64? = nil,
        authorization: String? = nil
    ) {
        self.podcast = podcast
        self.declaredLength = declaredLength
        self.authorization = authorization
        self.id = id
        self.url = url
        self.path = path
        self.number = number
        self.title = title
        self.episodeID = episodeID
        self.podcastID = podcastID
    }
}

/// A download as the background process reports it.
public struct ControlDownload: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case queued, running, paused, completed, failed, cancelled
    }

    public var id: String
    /// How the shell that handed it over named it: `P:E` for a library episode.
    public var number: String
    public var title: String
    /// The library episode and podcast, when it is one, and the podcast's title.
    public var episodeID: Int64?
    public var podcastID: Int64?
    public var podcast: String?
    public var path: String
    public var state: State
    public var bytes: Int64?
    public var total: Int64?
    public var bytesPerSecond: Double?
    /// Why it failed, and its code.
    public var message: String?
    public var code: String?

    public init(
        id: String,
        number: String,
        title: String,
        path: String,
        state: State,
        bytes: Int64? = nil,
        total: Int64? = nil,
        bytesPerSecond: Double? = nil,
        message: String? = nil,
        code: String? = nil
    ) {
        self.id = id
        self.number = number
        self.title = title
        self.path = path
        self.state = state
        self.bytes = bytes
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.message = message
        self.code = code
    }

    public var isActive: Bool { state == .queued || state == .running }
}

/// The answer to `hello`.
public struct ControlHello: Codable, Sendable, Equatable {
    public var pid: Int32
    /// The library the process records into: a shell of another library does not
    /// use it.
    public var library: String
    public var version: Int

    public init(pid: Int32, library: String, version: Int = ControlProtocol.version) {
        self.pid = pid
        self.library = library
        self.version = version
    }
}

/// What the background process says on a connection.
public struct ControlMessage: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable, Error {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The results a reply can carry.
    public struct Result: Codable, Sendable, Equatable {
        public var hello: ControlHello?
        public var downloads: [ControlDownload]?

        public init(hello: ControlHello? = nil, downloads: [ControlDownload]? = nil) {
            self.hello = hello
            self.downloads = downloads
        }
    }

    public var v: Int
    /// The request answered; nil for an event, or for a line without an id.
    public var id: Int?
    public var ok: Bool?
    public var result: Result?
    public var error: Failure?
    /// A download's new state (after `subscribe`).
    public var event: ControlDownload?

    public static func reply(_ id: Int, _ result: Result) -> ControlMessage {
        ControlMessage(v: ControlProtocol.version, id: id, ok: true, result: result)
    }

    public static func failure(_ id: Int?, code: String, _ message: String) -> ControlMessage {
        ControlMessage(v: ControlProtocol.version, id: id, ok: false, error: Failure(code: code, message: message))
    }

    public static func event(_ download: ControlDownload) -> ControlMessage {
        ControlMessage(v: ControlProtocol.version, event: download)
    }

    /// The line that carries it, newline included.
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data(#"{"v":1}"#.utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

extension ControlRequest {
    /// The line that carries it, newline included.
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Reads a request line, or says what is wrong with it (with its id when it
    /// had one).
    public static func parse(_ line: some DataProtocol) -> Swift.Result<ControlRequest, ControlParseError> {
        let data = Data(line)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .failure(ControlParseError(id: nil, message: "not a JSON object"))
        }
        let id = object["id"] as? Int
        guard let version = object["v"] as? Int else {
            return .failure(ControlParseError(id: id, message: "no protocol version (\"v\")"))
        }
        guard version == ControlProtocol.version else {
            return .failure(
                ControlParseError(
                    id: id,
                    message: "protocol version \(version) is not spoken here (\(ControlProtocol.version) is)"
                )
            )
        }
        guard let op = object["op"] as? String, ControlRequest.Operation(rawValue: op) != nil else {
            let known = ControlRequest.Operation.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(ControlParseError(id: id, message: "unknown operation; known: \(known)"))
        }
        do {
            return .success(try JSONDecoder().decode(ControlRequest.self, from: data))
        } catch {
            return .failure(ControlParseError(id: id, message: "malformed \(op) request"))
        }
    }
}

/// Why a line is not a request.
public struct ControlParseError: Error, Sendable, Equatable {
    public let id: Int?
    public let message: String

    public init(id: Int?, message: String) {
        self.id = id
        self.message = message
    }
}
