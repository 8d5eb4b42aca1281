import Foundation
import Synchronization

/// A TCP socket bound to a free port of 127.0.0.1, listening with `backlog` when
/// one is given: the socket and its port. The test servers' one way to get one.
public func loopbackSocket(listening backlog: Int32?) throws -> (socket: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
        }
    }
    guard bound, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        close(fd)
        throw error
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A loopback port that is bound but not listening, held for as long as this object
/// lives: connections to it are refused, and no other server can take it meanwhile
/// (unlike the port of a server that was just stopped).
public final class ClosedPort: Sendable {
    public let port: Int
    private let socketDescriptor: Int32

    public init() throws {
        (socketDescriptor, port) = try loopbackSocket(listening: nil)
    }

    deinit {
        close(socketDescriptor)
    }
}

/// A loopback server that takes connections and never answers: each request
/// waits for ever (a server that hangs, with nothing for a test to stop). It
/// counts the connections it took, on a thread of its own, and holds them open
/// until it is closed.
public final class SilentPort: Sendable {
    public let port: Int
    private let socketDescriptor: Int32
    private let taken = Taken()

    /// The connections taken, shared with the accepting thread.
    private final class Taken: Sendable {
        let list = Mutex<[Int32]>([])
    }

    public init() throws {
        let (fd, port) = try loopbackSocket(listening: 128)
        socketDescriptor = fd
        self.port = port
        Thread.detachNewThread { [taken] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                taken.list.withLock { $0.append(connection) }
            }
        }
    }

    /// `http://127.0.0.1:PORT` and `path`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// How many connections it has taken.
    public var connections: Int { taken.list.withLock { $0.count } }

    /// Stops taking connections (its thread ends) and closes those it took.
    public func close() {
        shutdown(socketDescriptor, Int32(SHUT_RDWR))
        // Taken out of the list first: a second close closes nothing twice.
        let connections = taken.list.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for connection in connections { Glibc.close(connection) }
    }

    deinit {
        close()
        Glibc.close(socketDescriptor)
    }
}
