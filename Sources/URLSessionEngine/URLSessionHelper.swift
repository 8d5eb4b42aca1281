import CurlOnDemand
import Downloads
import Foundation
import HTTPSupport
import NIOCore
import SystemPackage

/// The download transport of `feedsh --engine urlsession`, in a process of its own
/// for each request: feedsh runs itself with `HelperWire.urlSessionArgument`
/// (Downloads.HelperTransport), writes the request as one JSON line on the
/// helper's standard input and reads the answer in `HelperWire` frames from its
/// standard output.
///
/// A process apart keeps libcurl, which FoundationNetworking loads on its first
/// call (CurlOnDemand), and the thirty-odd libraries under it out of the shell's
/// own memory, and a cancelled download ends its process rather than asking
/// URLSession to stop.
public enum URLSessionHelper {
    /// Answers the one request on standard input, then ends the process.
    public static func run() async -> Never {
        if isatty(STDIN_FILENO) == 1 {
            fail("feedsh runs this for `--engine urlsession`; it reads its request from feedsh, not from a terminal")
        }
        guard let request = try? JSONDecoder().decode(HelperWire.Request.self, from: Data(readLine()))
        else {
            fail("the request on standard input is not a request of feedsh's")
        }
        guard feedsh_curl_load() == 0 else {
            let problem = String(cString: feedsh_curl_load_error())
            try? send(
                .failure(NetworkFailure(.engineUnavailable("urlsession needs libcurl: \(problem)"), url: request.url))
            )
            exit(0)
        }
        let transport = URLSessionTransport(
            userAgent: request.userAgent,
            connectTimeout: .seconds(request.connectTimeout),
            idleTimeout: .seconds(request.idleTimeout),
            proxies: (try? ProxyEnvironment(environment: ProcessInfo.processInfo.environment)) ?? .direct
        )
        do {
            let response = try await transport.send(request.transportRequest)
            try send(.head(.init(status: response.status, headers: response.headers, url: response.url)))
            for try await chunk in response.body {
                try send(.data(chunk))
            }
            try send(.end)
        } catch {
            try? send(.failure(NetworkFailure(error, url: request.url)))
        }
        exit(0)
    }

    /// Standard input up to its first newline, a byte at a time: nothing after the
    /// request is read.
    private static func readLine() -> [UInt8] {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let got = read(STDIN_FILENO, &byte, 1)
            if got < 0, errno == EINTR { continue }
            guard got == 1, byte != UInt8(ascii: "\n") else { break }
            line.append(byte)
        }
        return line
    }

    /// Writes a frame whole; a reader that has gone ends this process (SIGPIPE).
    private static func send(_ frame: HelperWire.Frame) throws {
        let encoded = frame.encoded()
        _ = try FileDescriptor.standardOutput.writeAll(encoded.readableBytesView)
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("feedsh \(HelperWire.urlSessionArgument): \(message)\n".utf8))
        exit(2)
    }
}
