import Downloads
import Foundation
import HTTPSupport
import NIOCore
import SystemPackage
import URLSessionEngine

// feedsh-urlsession: the download transport of `feedsh --engine urlsession`, run by
// feedsh for one request at a time (Downloads.HelperTransport). It reads the request
// as one JSON line on standard input and answers in HelperWire frames on standard
// output. It lives apart from feedsh so that FoundationNetworking and libcurl, with
// the thirty-odd libraries libcurl loads, cost only the downloads that use them.

/// Writes a frame whole; a reader that has gone ends this process (SIGPIPE).
func send(_ frame: HelperWire.Frame) throws {
    let encoded = frame.encoded()
    _ = try FileDescriptor.standardOutput.writeAll(encoded.readableBytesView)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("feedsh-urlsession: \(message)\n".utf8))
    exit(2)
}

if isatty(STDIN_FILENO) == 1 {
    fail("feedsh runs this for `--engine urlsession`; it reads its request from feedsh, not from a terminal")
}
var line: [UInt8] = []
var byte: UInt8 = 0
while true {
    let got = read(STDIN_FILENO, &byte, 1)
    if got < 0, errno == EINTR { continue }
    guard got == 1, byte != UInt8(ascii: "\n") else { break }
    line.append(byte)
}
guard let request = try? JSONDecoder().decode(HelperWire.Request.self, from: Data(line)) else {
    fail("the request on standard input is not a request of feedsh's")
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
