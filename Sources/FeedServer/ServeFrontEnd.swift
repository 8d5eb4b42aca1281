import FeedServices
import Foundation
import Library
import PlainText
import ServiceLifecycle

/// `feedsh serve`: the library's downloaded episodes as podcast feeds for any
/// podcast app, and the files themselves, with scheduled updates.
public enum ServeFrontEnd {
    /// Why `serve` does not start.
    public enum Refusal: Error, CustomStringConvertible {
        case noPassword(host: String)
        case badListen(String)
        /// The name given to `--listen` resolves to no address.
        case unresolved(String)
        /// `FEEDSH_SERVE_PASSWORD` is shorter than `set serve-password` allows.
        case weakPassword

        public var description: String {
            switch self {
            case .noPassword(let host):
                "refusing to serve on \(SafeText.line(host)), beyond this machine, without a password: "
                    + "set FEEDSH_SERVE_PASSWORD or 'set serve-password' (apps then use http://any:PASSWORD@host:PORT/..., or https:// through a TLS proxy in front)"
            case .badListen(let text):
                "--listen takes ADDRESS:PORT (127.0.0.1:8786, 0.0.0.0:8786, [::1]:8786), not '\(SafeText.line(text))'"
            case .unresolved(let host):
                "--listen names '\(SafeText.line(host))', which resolves to no address here"
            case .weakPassword:
                "FEEDSH_SERVE_PASSWORD must be at least 8 characters, as 'set serve-password' wants"
            }
        }
    }

    /// `127.0.0.1:8786`, `[::1]:0`, `0.0.0.0:8786`: host and port; nil for
    /// anything else.
    public static func listenAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        return (host, port)
    }

    /// `30m`, `1h`, `90` (seconds): as the listening settings write times.
    public static func duration(_ text: String) -> Double? {
        ListeningTime.seconds(text)
    }

    /// Serves until SIGTERM or SIGINT. Each request and update is one line on
    /// standard error (`json`: one object each). `services` are the caller's (the
    /// composition root's), closed by it.
    public static func run(
        services: Services,
        listen: String,
        updateEvery: Duration?,
        json: Bool,
        web: Bool = true
    ) async throws {
        guard let (name, port) = listenAddress(listen) else { throw Refusal.badListen(listen) }
        // Bound, and judged loopback or not, by the address the name resolves to
        // (`127.example.test` may be every interface's 0.0.0.0).
        guard let host = resolve(name) else { throw Refusal.unresolved(name) }
        let environment = ProcessInfo.processInfo.environment["FEEDSH_SERVE_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        if let environment, (try? Setting.servePassword.normalize(environment)) == nil { throw Refusal.weakPassword }
        var stored: String?
        if environment == nil { stored = await services.library.settings().values[.servePassword] }
        let password = environment ?? stored
        let catalog = LibraryCatalog(services: services)
        let server = FeedServer(
            catalog: catalog,
            web: web ? catalog : nil,
            configuration: .init(host: host, port: port, password: password),
            log: { line in write(json ? requestJSON(line) : requestText(line)) }
        )
        guard password != nil || server.configuration.isLoopback else { throw Refusal.noPassword(host: host) }
        let updates: [any Service] =
            updateEvery.map { interval in
                [
                    ScheduledUpdate(services: services, every: interval) { line in
                        write(json ? updateJSON(line) : updateText(line))
                    }
                ]
            } ?? []
        try await server.run(
            services: updates,
            started: { bound in
                let shown = host.contains(":") ? "[\(host)]" : host
                let auth = password == nil ? "" : " (Basic auth: any user, the serve password)"
                write(
                    json
                        ? LogLine.json(Serving(url: "http://\(shown):\(bound)/"))
                        : (web ? "serving your library's page at http://\(shown):\(bound)/ and " : "serving ")
                            + "http://\(shown):\(bound)/feeds/all.xml, /feeds/P.xml, /feeds/queue.xml, "
                            + "/subscriptions.opml\(auth)"
                )
            }
        )
        // Downloads the page started finish in the background feedsh.
        if web, await !services.downloads.engine.all().isEmpty { _ = try? await services.downloads.detach() }
    }

    /// The first address `name` resolves to, as numbers (`127.0.0.1`, `::1`).
    static func resolve(_ name: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard
            getnameinfo(
                first.pointee.ai_addr,
                first.pointee.ai_addrlen,
                &text,
                socklen_t(text.count),
                nil,
                0,
                NI_NUMERICHOST
            )
                == 0
        else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One line on standard error, in one write (a line a request: no copy
    /// into Data first).
    private static func write(_ line: String) {
        var line = line + "\n"
        line.withUTF8 { bytes in
            var left = UnsafeRawBufferPointer(bytes)
            while !left.isEmpty {
                let written = Glibc.write(2, left.baseAddress, left.count)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                left = UnsafeRawBufferPointer(rebasing: left[written...])
            }
        }
    }

    static func requestText(_ line: ServeLogLine) -> String {
        "\(line.method) \(SafeText.line(line.path)) \(line.status)" + (line.bytes.map { " \($0) B" } ?? "")
            + " \(line.milliseconds) ms"
    }

    static func requestJSON(_ line: ServeLogLine) -> String {
        LogLine.json(RequestEvent(line))
    }

    static func updateText(_ line: ServeUpdateLine) -> String {
        if let error = line.error { return "update failed: \(SafeText.line(error))" }
        return "update: \(line.podcasts) podcasts, \(line.newEpisodes) new episodes, \(line.failed) failed, "
            + "\(line.downloads) downloads started, \(line.milliseconds) ms"
    }

    static func updateJSON(_ line: ServeUpdateLine) -> String {
        LogLine.json(UpdateEvent(line))
    }
}

/// `serve`'s lines on standard error with `--json`: one object each, its keys in
/// the order declared, absent values as `null`.
enum LogLine {
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// `{"event": "serving", "url"}`.
struct Serving: Encodable {
    var event = "serving"
    let url: String
}

/// `{"event": "request", "method", "path", "status", "bytes", "ms"}`.
struct RequestEvent: Encodable {
    let line: ServeLogLine

    init(_ line: ServeLogLine) { self.line = line }

    enum CodingKeys: String, CodingKey { case event, method, path, status, bytes, ms }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("request", forKey: .event)
        try container.encode(line.method, forKey: .method)
        try container.encode(line.path, forKey: .path)
        try container.encode(line.status, forKey: .status)
        try container.encode(line.bytes, forKey: .bytes)
        try container.encode(line.milliseconds, forKey: .ms)
    }
}

/// `{"event": "update", "podcasts", "newEpisodes", "failed", "downloads", "error", "ms"}`.
struct UpdateEvent: Encodable {
    let line: ServeUpdateLine

    init(_ line: ServeUpdateLine) { self.line = line }

    enum CodingKeys: String, CodingKey { case event, podcasts, newEpisodes, failed, downloads, error, ms }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("update", forKey: .event)
        try container.encode(line.podcasts, forKey: .podcasts)
        try container.encode(line.newEpisodes, forKey: .newEpisodes)
        try container.encode(line.failed, forKey: .failed)
        try container.encode(line.downloads, forKey: .downloads)
        try container.encode(line.error, forKey: .error)
        try container.encode(line.milliseconds, forKey: .ms)
    }
}
