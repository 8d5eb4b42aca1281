import Foundation

/// The address of the Unix socket at `path`, for `connect` and `bind`.
public func unixSocketAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    return address
}

/// Runs `call` (connect or bind) with `address` as a `sockaddr`.
public func withSocketAddress(_ address: sockaddr_un, _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    var address = address
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// Sends `text` on a new connection to the Unix socket at `path` and returns the
/// first line back (empty when the peer closes first; at most 30 s), on a thread of
/// its own rather than one of Swift's pool (a server under test may answer on it).
public func unixSocketExchange(_ path: String, _ text: String) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try blockingUnixSocketExchange(path, text) })
        }
    }
}

private func blockingUnixSocketExchange(_ path: String, _ text: String) throws -> String {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    guard withSocketAddress(unixSocketAddress(path), { connect(fd, $0, $1) }) == 0 else {
        throw POSIXError(.ECONNREFUSED)
    }
    // All of it, however many writes that takes.
    let all = Array(text.utf8)
    var sent = 0
    while sent < all.count {
        let wrote = all[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if wrote < 0 && errno == EINTR { continue }
        guard wrote > 0 else { break }
        sent += wrote
    }
    // Waits with poll against one deadline. A read on a socket with SO_RCVTIMEO is not
    // restarted after a signal (signal(7)), and the test processes take SIGCHLD from
    // the players and servers other tests start: an EINTR once ended the line early.
    let deadline = ContinuousClock.now + .seconds(30)
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while ContinuousClock.now < deadline {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let left = deadline - ContinuousClock.now
        let waited = poll(&ready, 1, Int32(max(1, left.components.seconds * 1000 + 1)))
        if waited < 0 && errno == EINTR { continue }
        guard waited > 0 else { break }
        let got = read(fd, &byte, 1)
        if got < 0 && errno == EINTR { continue }
        guard got == 1, byte != 10 else { break }
        line.append(byte)
    }
    return String(decoding: line, as: UTF8.self)
}
