import FixtureServer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A proxy that misbehaves, on a loopback port: it reads each request's head
/// and answers 407 (wanting credentials), a line of garbage, or nothing (closing
/// at once). Its accept loop runs on a thread of its own and ends when it is
/// closed.
final class HostileProxy: Sendable {
    enum Answer: String, Sendable, CaseIterable {
        case authenticationRequired = "407"
        case garbage
        case close
    }

    let port: Int
    private let listener: Int32

    init(_ answer: Answer) throws {
        let (fd, port) = try loopbackSocket(listening: 16)
        listener = fd
        self.port = port
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                Self.answer(client, answer)
            }
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting (the accept loop's thread ends).
    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    private static func answer(_ client: Int32, _ answer: Answer) {
        defer { Glibc.close(client) }
        if answer == .close { return }
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            let count = read(client, &buffer, buffer.count)
            // SO_RCVTIMEO keeps a read from being restarted after a signal (signal(7)).
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            head += buffer[0..<count]
        }
        let reply =
            answer == .garbage
            ? "SSH-2.0-OpenSSH_9.2\r\n"
            : "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = reply.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
    }
}
