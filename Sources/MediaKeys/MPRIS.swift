import Foundation
import PlainText
import Playback

/// The episode a remote control shows as playing.
public struct NowPlayingItem: Sendable, Equatable {
    /// Stable for the episode: it names the track (`mpris:trackid`).
    public var id: String
    public var title: String
    public var podcast: String
    public var artist: String?
    /// The podcast's artwork, when the image cache holds it.
    public var artwork: String?
    /// Seconds, as the feed says (mpv's duration is used once known).
    public var length: Double?

    public init(
        id: String,
        title: String,
        podcast: String,
        artist: String? = nil,
        artwork: String? = nil,
        length: Double? = nil
    ) {
        self.id = id
        self.title = title
        self.podcast = podcast
        self.artist = artist
        self.artwork = artwork
        self.length = length
    }

    /// The D-Bus object path that names this track: its id's letters and
    /// digits, any other byte as `_` and two hex digits.
    public var trackID: String {
        var path = MPRIS.trackPrefix
        for byte in id.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) {
                path.append(Character(Unicode.Scalar(byte)))
            } else {
                path += "_" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return path
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// What MPRIS shows at a moment: the episode and the player's state (nil
/// between episodes).
public struct MPRISSnapshot: Sendable, Equatable {
    public var item: NowPlayingItem?
    public var state: PlayerState?

    public init(item: NowPlayingItem? = nil, state: PlayerState? = nil) {
        self.item = item
        self.state = state
    }
}

/// A method call a client made.
public struct MPRISCall: Sendable, Equatable {
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) {
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// What to answer a call, and what it asks of the playback.
public struct MPRISAnswer: Sendable, Equatable {
    /// The reply's values, or the D-Bus error's name and text.
    public var reply: Result<[DBusValue], MPRISError>
    public var command: RemoteCommand?

    static func ok(_ values: [DBusValue] = [], _ command: RemoteCommand? = nil) -> MPRISAnswer {
        MPRISAnswer(reply: .success(values), command: command)
    }

    static func failed(_ name: String, _ message: String) -> MPRISAnswer {
        MPRISAnswer(reply: .failure(MPRISError(name: name, message: message)), command: nil)
    }
}

/// A D-Bus error reply.
public struct MPRISError: Error, Sendable, Equatable {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// The MPRIS D-Bus interface (specification 2.2) over a playback: properties
/// from a ``MPRISSnapshot``, method calls to ``RemoteCommand``s, and what
/// changed between two snapshots. Pure: the bus is ``SessionBus``'s.
public enum MPRIS {
    public static let objectPath = "/org/mpris/MediaPlayer2"
    public static let busName = "org.mpris.MediaPlayer2.feedsh"
    public static let root = "org.mpris.MediaPlayer2"
    public static let player = "org.mpris.MediaPlayer2.Player"
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let trackPrefix = "/org/feedsh/episode/"
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    /// The speeds `set speed` allows.
    public static let rates: ClosedRange<Double> = 0.25...4

    /// The root interface's properties: who feedsh is, and that it cannot be
    /// raised or quit from outside.
    public static var rootProperties: [String: DBusValue] {
        [
            "CanQuit": .bool(false), "CanRaise": .bool(false), "HasTrackList": .bool(false),
            "Identity": .string("feedsh"), "DesktopEntry": .string("feedsh"),
            "SupportedUriSchemes": .strings([]), "SupportedMimeTypes": .strings([]),
        ]
    }

    /// The Player interface's properties at `snapshot`.
    public static func playerProperties(_ snapshot: MPRISSnapshot) -> [String: DBusValue] {
        let state = snapshot.state
        let playing = state != nil
        return [
            "PlaybackStatus": .string(state.map { $0.paused ? "Paused" : "Playing" } ?? "Stopped"),
            "Rate": .double(state?.speed ?? 1),
            "Metadata": .dictionary(metadata(snapshot)),
            "Volume": .double((state?.volume ?? 100) / 100),
            "Position": .int64(microseconds(state?.position ?? 0)),
            "MinimumRate": .double(rates.lowerBound),
            "MaximumRate": .double(rates.upperBound),
            "CanGoNext": .bool(state.map { $0.nextChapter != nil || $0.nextEpisode } ?? false),
            "CanGoPrevious": .bool(playing),
            "CanPlay": .bool(playing),
            "CanPause": .bool(playing),
            "CanSeek": .bool(playing),
            "CanControl": .bool(true),
        ]
    }

    /// `Metadata`: the track's id, its length in microseconds, the episode as
    /// title, the podcast as album, its author as artist and the cached artwork.
    /// The feed's words are made safe (one line, no control characters):
    /// `playerctl` and status bars print them to terminals.
    static func metadata(_ snapshot: MPRISSnapshot) -> [String: DBusValue] {
        guard let item = snapshot.item else { return ["mpris:trackid": .objectPath(noTrack)] }
        var values: [String: DBusValue] = [
            "mpris:trackid": .objectPath(item.trackID),
            "xesam:title": .string(SafeText.line(item.title)),
            "xesam:album": .string(SafeText.line(item.podcast)),
            "xesam:artist": .strings([SafeText.line(item.artist ?? item.podcast)]),
        ]
        if let length = snapshot.state?.duration ?? item.length, length > 0 {
            values["mpris:length"] = .int64(microseconds(length))
        }
        if let artwork = item.artwork { values["mpris:artUrl"] = .string(URL(fileURLWithPath: artwork).absoluteString) }
        return values
    }

    static func microseconds(_ seconds: Double) -> Int64 {
        Int64((min(max(seconds.isFinite ? seconds : 0, 0), 1e12) * 1_000_000).rounded())
    }

    /// The answer to `call` at `snapshot`.
    public static func handle(_ call: MPRISCall, at snapshot: MPRISSnapshot) -> MPRISAnswer {
        let arguments = call.arguments
        switch (call.interface, call.member) {
        case (player, "Play"): return .ok([], .play)
        case (player, "Pause"): return .ok([], .pause)
        case (player, "PlayPause"): return .ok([], .playPause)
        case (player, "Stop"): return .ok([], .stop)
        case (player, "Next"): return .ok([], .next)
        case (player, "Previous"): return .ok([], .previous)
        case (player, "Seek"):
            guard case .int64(let offset)? = arguments.first else { return badArguments(call, "x") }
            return .ok([], .seekBy(Double(offset) / 1e6))
        case (player, "SetPosition"):
            guard arguments.count == 2, case .objectPath(let track) = arguments[0], case .int64(let at) = arguments[1]
            else { return badArguments(call, "ox") }
            // A stale track id (the episode changed) is ignored, as the
            // specification asks; so is a place outside the file.
            guard let item = snapshot.item, track == item.trackID, at >= 0 else { return .ok() }
            return .ok([], .seekTo(Double(at) / 1e6))
        case (player, "OpenUri"):
            return .failed("org.freedesktop.DBus.Error.NotSupported", "feedsh plays its own episodes")
        case (root, "Raise"), (root, "Quit"):
            return .ok()
        case (properties, "Get"):
            guard arguments.count == 2, let interface = arguments[0].text, let name = arguments[1].text else {
                return badArguments(call, "ss")
            }
            guard let value = self.properties(of: interface, at: snapshot)?[name] else {
                return .failed("org.freedesktop.DBus.Error.UnknownProperty", "no property \(interface).\(name)")
            }
            return .ok([.variant(value)])
        case (properties, "GetAll"):
            guard let interface = arguments.first?.text else { return badArguments(call, "s") }
            return .ok([.dictionary(self.properties(of: interface, at: snapshot) ?? [:])])
        case (properties, "Set"):
            guard arguments.count == 3, let interface = arguments[0].text, let name = arguments[1].text else {
                return badArguments(call, "ssv")
            }
            switch (interface, name) {
            case (player, "Rate"):
                guard let rate = arguments[2].number else { return badArguments(call, "ssv") }
                // 0 is a pause (the specification); the rest within the speeds allowed.
                return .ok([], rate <= 0 ? .pause : .speed(min(max(rate, rates.lowerBound), rates.upperBound)))
            case (player, "Volume"):
                guard let volume = arguments[2].number else { return badArguments(call, "ssv") }
                return .ok([], .volume(max(0, volume) * 100))
            default:
                return .failed("org.freedesktop.DBus.Error.PropertyReadOnly", "\(interface).\(name) cannot be set")
            }
        case (introspectable, "Introspect"):
            return .ok([.string(introspection)])
        default:
            return .failed(
                "org.freedesktop.DBus.Error.UnknownMethod",
                "no method \(call.member) in \(call.interface.isEmpty ? "any interface" : call.interface)"
            )
        }
    }

    private static func badArguments(_ call: MPRISCall, _ signature: String) -> MPRISAnswer {
        .failed("org.freedesktop.DBus.Error.InvalidArgs", "\(call.member) takes (\(signature))")
    }

    private static func properties(of interface: String, at snapshot: MPRISSnapshot) -> [String: DBusValue]? {
        switch interface {
        case root: rootProperties
        case player: playerProperties(snapshot)
        default: nil
        }
    }

    /// The Player properties that differ between `old` and `new`, for
    /// `PropertiesChanged` (the place is never signalled: clients read it).
    public static func changes(from old: MPRISSnapshot, to new: MPRISSnapshot) -> [String: DBusValue] {
        let before = playerProperties(old)
        return playerProperties(new).filter { name, value in name != "Position" && before[name] != value }
    }

    /// The place to announce with `Seeked`, when a seek landed between `old` and
    /// `new` (or a new episode began elsewhere than its start), in microseconds.
    public static func seeked(from old: MPRISSnapshot, to new: MPRISSnapshot) -> Int64? {
        guard let state = new.state, let position = state.position else { return nil }
        guard let before = old.state else { return nil }
        return state.seeks != before.seeks ? microseconds(position) : nil
    }

    /// The interfaces as D-Bus introspection XML.
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
            <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
          </interface>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="DesktopEntry" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
            <method name="SetPosition"><arg name="TrackId" type="o" direction="in"/><arg name="Position" type="x" direction="in"/></method>
            <method name="OpenUri"><arg name="Uri" type="s" direction="in"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="Rate" type="d" access="readwrite"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
