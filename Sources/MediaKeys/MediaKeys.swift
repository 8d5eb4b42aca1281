import CFileIO
import Foundation
import Playback
import Synchronization

/// feedsh on the D-Bus session bus as an MPRIS media player while `play` runs:
/// the desktop's media keys, a headset's button and `playerctl -p feedsh`
/// reach the playback through a ``PlaybackRemote``, and see the episode playing.
///
/// The bus has a thread of its own (sd-bus wants one owner): it answers calls
/// from the latest ``MPRISSnapshot`` and, when woken, signals what changed.
/// libsystemd is loaded only when a bus is there (`DBUS_SESSION_BUS_ADDRESS`).
public final class MediaKeys: Sendable {
    private struct Shared {
        var snapshot = MPRISSnapshot()
        var stopping = false
        var finished = false
        var waiting: CheckedContinuation<Void, Never>?
    }

    private let shared = Mutex(Shared())
    private let remote: PlaybackRemote
    /// A pipe that wakes the bus thread (its read end is polled with the bus).
    private let wake: (read: Int32, write: Int32)

    /// Starts serving `remote` on the session bus in `environment`; nil when
    /// there is none (nothing is said: most machines playing from a terminal
    /// have no desktop).
    public static func start(
        remote: PlaybackRemote,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> MediaKeys? {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else { return nil }
        guard let wake = wakePipe() else { return nil }
        let keys = MediaKeys(remote: remote, wake: wake)
        let thread = Thread { keys.run() }
        thread.name = "feedsh-mpris"
        thread.start()
        return keys
    }

    private init(remote: PlaybackRemote, wake: (read: Int32, write: Int32)) {
        self.remote = remote
        self.wake = wake
        remote.observe { [weak self] state in self?.observed(state) }
    }

    /// A pipe whose ends do not block.
    private static func wakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard feedsh_pipe_cloexec(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    /// Shows `item` as the episode playing (nil: none).
    public func nowPlaying(_ item: NowPlayingItem?) {
        let changed = shared.withLock { shared in
            guard shared.snapshot.item != item else { return false }
            shared.snapshot.item = item
            return true
        }
        if changed { poke() }
    }

    /// Leaves the bus (the name is free again when this returns).
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { shared -> Bool in
                shared.stopping = true
                if shared.finished { return true }
                shared.waiting = continuation
                return false
            }
            if done { continuation.resume() } else { poke() }
        }
        remote.observe { _ in }
    }

    // The pipe outlives the bus thread (which holds this object until it ends)
    // and any observer still running (each holds it while it runs).
    deinit {
        close(wake.read)
        close(wake.write)
    }

    private func observed(_ state: PlayerState?) {
        let significant = shared.withLock { shared in
            defer { shared.snapshot.state = state }
            return Self.withoutPlace(shared.snapshot.state) != Self.withoutPlace(state)
        }
        if significant { poke() }
    }

    /// The state without the place, which moves every moment and is read, not
    /// signalled.
    private static func withoutPlace(_ state: PlayerState?) -> PlayerState? {
        guard var state else { return nil }
        state.position = nil
        return state
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// The bus thread: connects, then answers calls and signals changes until
    /// ``stop()``.
    private func run() {
        defer {
            let waiting = shared.withLock { shared in
                shared.finished = true
                return shared.waiting
            }
            waiting?.resume()
        }
        let bus: SessionBus
        do {
            bus = try SessionBus(name: MPRIS.busName, path: MPRIS.objectPath) { [self] call in
                // The place at the moment of the call: the state as last published.
                let snapshot = shared.withLock { $0.snapshot }
                let answer = MPRIS.handle(call, at: snapshot)
                if let command = answer.command { remote.send(command) }
                return answer
            }
        } catch {
            return
        }
        var published = MPRISSnapshot()
        while true {
            guard bus.process() else { return }
            let (snapshot, stopping) = shared.withLock { ($0.snapshot, $0.stopping) }
            if stopping { return }
            let changed = MPRIS.changes(from: published, to: snapshot)
            if !changed.isEmpty {
                bus.signal(
                    path: MPRIS.objectPath,
                    interface: MPRIS.properties,
                    member: "PropertiesChanged",
                    [.string(MPRIS.player), .dictionary(changed), .strings([])]
                )
            }
            if let position = MPRIS.seeked(from: published, to: snapshot) {
                bus.signal(path: MPRIS.objectPath, interface: MPRIS.player, member: "Seeked", [.int64(position)])
            }
            published = snapshot
            bus.flush()
            var watched = [
                pollfd(fd: bus.descriptor, events: bus.events, revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&watched, 2, bus.timeout)
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &drain, drain.count) > 0 {}
        }
    }
}
