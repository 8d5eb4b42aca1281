import Foundation

/// A line mpv's JSON IPC sends: a reply to a request, or an event.
///
/// See mpv's manual, "JSON IPC": every message is one JSON object on a line.
public enum MPVMessage: Sendable, Equatable {
    /// A property that ``MPVCommand/observe(_:id:)`` watches changed; `value` is
    /// nil while it is unavailable (no file loaded).
    case propertyChange(name: String, value: Double?)
    /// The file is loaded and about to play.
    case fileLoaded
    /// Playback started (or restarted after a seek).
    case playbackRestart
    /// The file ended: `reason` is `eof`, `stop`, `quit`, `error` or `redirect`;
    /// `error` says why for `error`.
    case endFile(reason: String, error: String?)
    /// The answer to request `id`: `error` is `success` or why it failed.
    case reply(id: Int, error: String, value: Double?)
    /// Any other event, by name.
    case other(String)

    /// Reads one line; nil when it is not an mpv message (not JSON, or neither an
    /// event nor a reply).
    public static func parse(_ line: some DataProtocol) -> MPVMessage? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
        if let event = object["event"] as? String {
            switch event {
            case "property-change":
                guard let name = object["name"] as? String else { return nil }
                return .propertyChange(name: name, value: number(object["data"]))
            case "file-loaded": return .fileLoaded
            case "playback-restart": return .playbackRestart
            case "end-file":
                return .endFile(reason: object["reason"] as? String ?? "", error: object["file_error"] as? String)
            default: return .other(event)
            }
        }
        guard let id = object["request_id"] as? Int, let error = object["error"] as? String else { return nil }
        return .reply(id: id, error: error, value: number(object["data"]))
    }

    private static func number(_ value: Any?) -> Double? {
        (value as? NSNumber).map(\.doubleValue)
    }
}

/// A command sent to mpv's JSON IPC.
public enum MPVCommand: Sendable, Equatable {
    /// Report changes of property `name` as `property-change` events.
    case observe(String, id: Int)
    /// Ask for a property's value; the reply carries `requestID`.
    case get(String, requestID: Int)
    /// Sets a boolean property (`pause`).
    case set(String, Bool)
    case quit

    /// The line to send, newline included.
    public var line: String {
        let words: [Any]
        var requestID: Int?
        switch self {
        case .observe(let name, let id): words = ["observe_property", id, name]
        case .get(let name, let id):
            words = ["get_property", name]
            requestID = id
        case .set(let name, let value): words = ["set_property", name, value]
        case .quit: words = ["quit"]
        }
        var object: [String: Any] = ["command": words]
        if let requestID { object["request_id"] = requestID }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
