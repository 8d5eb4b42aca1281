import Foundation
import HTTPSupport
import NIOCore
import NIOFoundationCompat

/// What feedsh and a transport helper (feedsh itself, run with
/// ``urlSessionArgument``) say to each other.
///
/// The helper runs one request in a process of its own, so that the libraries it
/// needs (libcurl, with some thirty shared libraries of its own) are loaded by it
/// and not by the shell; git runs its `git-remote-https` for the same reason.
///
/// The request is one JSON line on the helper's standard input: it may carry a
/// private feed's `Authorization`, which an argument would show to every user of
/// the machine in `ps`. The answer, on its standard output, is a series of frames:
/// a 4-byte big-endian length, then that many bytes, the first of which says what
/// the rest is (``Frame``). A clean end is a frame of its own, so a helper that dies
/// midway is never read as a body that ended.
public enum HelperWire {
    /// The first argument that makes feedsh the urlsession engine's helper
    /// (URLSessionEngine.URLSessionHelper); not a flag anyone types.
    public static let urlSessionArgument = "--urlsession-helper"

    /// One request, as ``DownloadTransport/send(_:)`` is given it, and the
    /// transport's own settings.
    public struct Request: Codable, Sendable, Equatable {
        public struct Header: Codable, Sendable, Equatable {
            public var name: String
            public var value: String
        }

        public var url: URL
        public var headers: [Header]
        public var userAgent: String
        /// Seconds.
        public var connectTimeout: Double
        /// Seconds without a byte before the transfer fails.
        public var idleTimeout: Double

        public init(
            _ request: TransportRequest,
            userAgent: String,
            connectTimeout: Duration,
            idleTimeout: Duration
        ) {
            url = request.url
            headers = request.headers.map { Header(name: $0.name, value: $0.value) }
            self.userAgent = userAgent
            self.connectTimeout = connectTimeout.seconds
            self.idleTimeout = idleTimeout.seconds
        }

        public var transportRequest: TransportRequest {
            TransportRequest(url: url, headers: headers.map { (name: $0.name, value: $0.value) })
        }
    }

    /// A response's head.
    public struct Head: Codable, Sendable, Equatable {
        public var status: Int
        /// Values by lower-cased name.
        public var headers: [String: String]
        public var url: URL?

        public init(status: Int, headers: [String: String], url: URL?) {
            self.status = status
            self.headers = headers
            self.url = url
        }
    }

    /// One frame of the answer.
    public enum Frame: Sendable, Equatable {
        /// The head, first (JSON).
        case head(Head)
        /// Bytes of the body.
        case data(ByteBuffer)
        /// The request or the body failed (JSON); the last frame.
        case failure(NetworkFailure)
        /// The body is complete; the last frame.
        case end

        /// The first byte of a frame's payload.
        enum Kind: UInt8 {
            case head = 0x68  // h
            case data = 0x64  // d
            case failure = 0x65  // e
            case end = 0x66  // f
        }

        /// The frame with its length before it, as it is written.
        public func encoded() -> ByteBuffer {
            var buffer = ByteBuffer()
            let json = JSONEncoder()
            buffer.writeInteger(UInt32(0))
            switch self {
            case .head(let head):
                buffer.writeInteger(Kind.head.rawValue)
                buffer.writeBytes((try? json.encode(head)) ?? Data())
            case .data(let bytes):
                buffer.writeInteger(Kind.data.rawValue)
                buffer.writeImmutableBuffer(bytes)
            case .failure(let failure):
                buffer.writeInteger(Kind.failure.rawValue)
                buffer.writeBytes((try? json.encode(failure)) ?? Data())
            case .end:
                buffer.writeInteger(Kind.end.rawValue)
            }
            buffer.setInteger(UInt32(buffer.readableBytes - 4), at: buffer.readerIndex)
            return buffer
        }

        /// A frame's payload (without its length), read back.
        public init(payload: ByteBuffer) throws(HelperWireError) {
            var payload = payload
            guard let byte = payload.readInteger(as: UInt8.self) else { throw .malformed("an empty frame") }
            guard let kind = Kind(rawValue: byte) else { throw .malformed("a frame of unknown kind \(byte)") }
            switch kind {
            case .head:
                guard let head = try? JSONDecoder().decode(Head.self, from: payload) else {
                    throw .malformed("a response head that is not JSON")
                }
                self = .head(head)
            case .data:
                self = .data(payload)
            case .failure:
                guard let failure = try? JSONDecoder().decode(NetworkFailure.self, from: payload) else {
                    throw .malformed("a failure that is not JSON")
                }
                self = .failure(failure)
            case .end:
                self = .end
            }
        }
    }
}

/// The helper's answer could not be read as ``HelperWire`` frames, or ended early.
public enum HelperWireError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    /// The helper's output ended before the last frame (it crashed, or was killed).
    case endedEarly(program: String)
    /// The helper's program is not there, or not executable.
    case missing(program: String)
    /// posix_spawn refused to start it.
    case cannotStart(program: String, errno: Int32)

    public var description: String {
        switch self {
        case .malformed(let what): "the transport helper sent \(what)"
        case .endedEarly(let program): "\(program) ended before the response did"
        case .missing(let program): "cannot run \(program): it is not an executable file"
        case .cannotStart(let program, let errno): "cannot start \(program): \(String(cString: strerror(errno)))"
        }
    }
}
