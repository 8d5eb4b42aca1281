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
    /// `chapter-list` changed: each chapter's start in the file and its title.
    case chapterList([PlayRequest.Chapter])
    /// A property holding text by name changed (`af-metadata/LABEL`); empty while
    /// it has none.
    case metadata(name: String, values: [String: String])
    /// `script-message` words sent to every client (a key bound with
    /// ``MPVCommand/keybind(_:_:)``, or another feedsh).
    case clientMessage([String])
    /// A seek started: what plays next restarts the audio filters.
    case seek
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
                if name == "chapter-list" {
                    let list = object["data"] as? [[String: Any]] ?? []
                    return .chapterList(
                        list.compactMap { chapter in
                            number(chapter["time"]).map {
                                PlayRequest.Chapter(start: $0, title: chapter["title"] as? String ?? "")
                            }
                        }
                    )
                }
                if name.hasPrefix("af-metadata/") {
                    let values = object["data"] as? [String: Any] ?? [:]
                    return .metadata(name: name, values: values.compactMapValues { $0 as? String })
                }
                return .propertyChange(name: name, value: number(object["data"]))
            case "client-message":
                return .clientMessage((object["args"] as? [Any] ?? []).compactMap { $0 as? String })
            case "seek": return .seek
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
    /// Sets a number property (`volume`).
    case setNumber(String, Double)
    /// Sets a text property or option (`term-status-msg`).
    case setText(String, String)
    /// Seeks to `seconds` into the file.
    case seek(Double)
    /// Binds a key to an input command (mpv's `keybind`).
    case keybind(String, String)
    /// Shows a line on mpv's OSD (and its terminal status line) for a moment.
    case showText(String)
    /// Sends `script-message` words to every client of this mpv.
    case scriptMessage([String])
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
        case .setNumber(let name, let value): words = ["set_property", name, value.isFinite ? value : 0]
        case .setText(let name, let value): words = ["set_property", name, value]
        case .seek(let seconds): words = ["seek", seconds.isFinite ? max(0, seconds) : 0, "absolute+exact"]
        case .keybind(let key, let command): words = ["keybind", key, command]
        case .showText(let text): words = ["show-text", text, 3000]
        case .scriptMessage(let arguments): words = ["script-message"] + arguments
        case .quit: words = ["quit"]
        }
        var object: [String: Any] = ["command": words]
        if let requestID { object["request_id"] = requestID }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
