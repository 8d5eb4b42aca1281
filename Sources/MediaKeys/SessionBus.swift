import CSDBus
import Foundation

/// One connection to the D-Bus session bus through sd-bus, owned by the thread
/// that made it (sd-bus is not thread-safe): it holds a name, answers calls to
/// one object path with `handle`, and sends signals. Not Sendable: the bus
/// thread of ``MediaKeys`` alone uses it.
final class SessionBus {
    private let bus: OpaquePointer
    private var slot: OpaquePointer?
    private let handle: (MPRISCall) -> MPRISAnswer
    /// The name held on the bus.
    private(set) var name = ""

    /// Why the bus cannot be reached.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`), takes `name`
    /// (or, when another player holds it, `name.instancePID` as MPRIS allows)
    /// and serves `path` with `handle`.
    init(name wanted: String, path: String, handle: @escaping (MPRISCall) -> MPRISAnswer) throws(Failure) {
        guard csd_load() == 0 else { throw Failure(description: String(cString: csd_load_error())) }
        var bus: OpaquePointer?
        let opened = csd_open_user(&bus)
        guard opened >= 0, let bus else { throw Failure(description: "no session bus: \(Self.error(opened))") }
        self.bus = bus
        self.handle = handle
        for candidate in [wanted, "\(wanted).instance\(getpid())"] {
            let result = csd_request_name(bus, candidate, 0)
            if result >= 0 {
                name = candidate
                break
            }
            // Thrown from here on, deinit closes the bus (every property is set).
            guard result == -EEXIST else {
                throw Failure(description: "cannot take \(candidate): \(Self.error(result))")
            }
        }
        guard !name.isEmpty else { throw Failure(description: "\(wanted) is taken") }
        let added = csd_add_object(
            bus,
            &slot,
            path,
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                let bus = Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue()
                return bus.dispatch(message)
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
        guard added >= 0 else { throw Failure(description: "cannot serve \(path): \(Self.error(added))") }
    }

    deinit {
        if let slot { csd_slot_unref(slot) }
        csd_close(bus)
    }

    /// The bus's socket, to wait on.
    var descriptor: Int32 { csd_get_fd(bus) }
    /// The poll events sd-bus waits for.
    var events: Int16 { Int16(truncatingIfNeeded: max(0, csd_get_events(bus))) }

    /// Milliseconds until sd-bus needs to run again (-1: only when the socket
    /// is ready).
    var timeout: Int32 {
        var when: UInt64 = 0
        guard csd_get_timeout(bus, &when) >= 0, when != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return when <= nowMicroseconds ? 0 : Int32(min((when - nowMicroseconds) / 1000 + 1, 60_000))
    }

    /// Handles what arrived; false when the connection is gone.
    func process() -> Bool {
        while true {
            let result = csd_process(bus)
            if result < 0 { return false }
            if result == 0 { return true }
        }
    }

    func flush() { _ = csd_flush(bus) }

    /// Sends a signal from `path`.
    func signal(path: String, interface: String, member: String, _ values: [DBusValue]) {
        var message: OpaquePointer?
        guard csd_new_signal(bus, &message, path, interface, member) >= 0, let message else { return }
        defer { csd_message_unref(message) }
        guard values.allSatisfy({ Self.append($0, to: message) }) else { return }
        _ = csd_send(bus, message)
    }

    private func dispatch(_ message: OpaquePointer) -> Int32 {
        let interface = csd_message_interface(message).map { String(cString: $0) } ?? ""
        let member = csd_message_member(message).map { String(cString: $0) } ?? ""
        let answer = handle(MPRISCall(interface, member, Self.arguments(of: message)))
        var reply: OpaquePointer?
        switch answer.reply {
        case .success(let values):
            guard csd_new_method_return(message, &reply) >= 0, let made = reply else { return 1 }
            guard values.allSatisfy({ Self.append($0, to: made) }) else {
                csd_message_unref(made)
                return 1
            }
        case .failure(let error):
            guard csd_new_method_error(message, &reply, error.name, error.message) >= 0 else { return 1 }
        }
        if let reply {
            _ = csd_send(bus, reply)
            csd_message_unref(reply)
        }
        return 1
    }

    private static func type(_ letter: Unicode.Scalar) -> CChar { CChar(bitPattern: UInt8(letter.value)) }

    /// The call's arguments of basic types and variants of them; other kinds
    /// are skipped (no MPRIS method takes them).
    private static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = next(of: message) {
            if let value { values.append(value) }
        }
        return values
    }

    /// The next argument: nil at the end (or when it cannot be read), `.some(nil)`
    /// for one skipped.
    private static func next(of message: OpaquePointer) -> DBusValue?? {
        var kind: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard csd_message_peek_type(message, &kind, &contents) > 0 else { return nil }
        switch UnicodeScalar(UInt8(bitPattern: kind)) {
        case "s", "o":
            var text: UnsafePointer<CChar>?
            guard csd_message_read_basic(message, kind, &text) > 0, let text else { return nil }
            let string = String(cString: text)
            return kind == type("o") ? .objectPath(string) : .string(string)
        case "x": return read(message, kind, Int64(0)).map(DBusValue.int64)
        case "u": return read(message, kind, UInt32(0)).map(DBusValue.uint32)
        case "i": return read(message, kind, Int32(0)).map { .int64(Int64($0)) }
        case "d": return read(message, kind, Double(0)).map(DBusValue.double)
        // sd-bus reads a boolean as a C int.
        case "b": return read(message, kind, Int32(0)).map { .bool($0 != 0) }
        case "v":
            guard csd_message_enter(message, kind, contents) > 0 else { return nil }
            defer { _ = csd_message_exit(message) }
            guard case let inner?? = next(of: message) else { return .some(nil) }
            return .variant(inner)
        default:
            guard csd_message_skip(message, nil) >= 0 else { return nil }
            return .some(nil)
        }
    }

    /// A fixed-size value of D-Bus type `kind`, read into a `T` (nil when it
    /// cannot be read).
    private static func read<T: BitwiseCopyable>(_ message: OpaquePointer, _ kind: CChar, _ initial: T) -> T? {
        var value = initial
        guard csd_message_read_basic(message, kind, &value) > 0 else { return nil }
        return value
    }

    /// Appends `value` to `message`; false when sd-bus refused.
    private static func append(_ value: DBusValue, to message: OpaquePointer) -> Bool {
        switch value {
        case .string(let text):
            return text.withCString { csd_append_basic(message, type("s"), $0) >= 0 }
        case .objectPath(let path):
            return path.withCString { csd_append_basic(message, type("o"), $0) >= 0 }
        case .bool(let flag):
            var number: Int32 = flag ? 1 : 0
            return csd_append_basic(message, type("b"), &number) >= 0
        case .int64(var number):
            return csd_append_basic(message, type("x"), &number) >= 0
        case .uint32(var number):
            return csd_append_basic(message, type("u"), &number) >= 0
        case .double(var number):
            return csd_append_basic(message, type("d"), &number) >= 0
        case .strings(let texts):
            guard csd_open_container(message, type("a"), "s") >= 0 else { return false }
            for text in texts where !append(.string(text), to: message) { return false }
            return csd_close_container(message) >= 0
        case .dictionary(let entries):
            guard csd_open_container(message, type("a"), "{sv}") >= 0 else { return false }
            for key in entries.keys.sorted() {
                guard csd_open_container(message, type("e"), "sv") >= 0, append(.string(key), to: message),
                    append(.variant(entries[key]!), to: message), csd_close_container(message) >= 0
                else { return false }
            }
            return csd_close_container(message) >= 0
        case .variant(let inner):
            guard csd_open_container(message, type("v"), inner.signature) >= 0, append(inner, to: message) else {
                return false
            }
            return csd_close_container(message) >= 0
        }
    }

    private static func error(_ code: Int32) -> String {
        String(cString: strerror(-code))
    }
}
