/// Faults the fixture server injects into one request.
///
/// A fault is chosen by a path prefix, so that it works for every route and for any
/// base URL a client is given: `/fault/drop=1000,etag=2/media/1/2.mp3` serves
/// `/media/1/2.mp3`, dropping the connection after 1000 body bytes and with the
/// content and ETag of version 2. Keys:
///
/// - `status=N`: answer with status N (and a small JSON body) instead of the resource.
/// - `retry-after=S`: add `Retry-After: S` (with `status`).
/// - `times=K`: apply the fault only to the first K requests with this prefix and
///   path; later ones are served normally (a server that recovers).
/// - `after=K`: apply the fault only after the first K requests with this prefix
///   and path (a server that breaks later).
/// - `drop=N`: send N body bytes, then close the connection.
/// - `short=N`: promise N bytes more in Content-Length than are sent, then close.
/// - `norange`: ignore `Range` and `If-Range` and always answer 200 with everything.
/// - `etag=V`: serve version V of the media: other bytes, another ETag and date.
/// - `html`: serve an HTML error page with status 200 instead of the resource.
/// - `delay=MS`: wait this long before answering.
/// - `rate=B`: send the body at about B bytes a second.
/// - `changes=K`: requests after the first K with this prefix and path get the next
///   version (other bytes, ETag and date): a file replaced mid-download.
/// - `ifrange-ignored`: honour `Range` even when `If-Range` no longer matches (a
///   broken cache), so a 206 carries another version's bytes and validators.
/// - `offset=N`: a 206 starts N bytes after the byte asked for.
/// - `nocr`: a 206 without `Content-Range`.
/// - `novalidators`: no `ETag` and no `Last-Modified`.
/// - `gzip`: the body gzip-encoded, with `Content-Encoding: gzip`, whatever was asked.
/// - `redirect=N`: N redirects (302) before the resource; `redirect=loop` redirects
///   to itself for ever.
/// - `nolimit`: a lookup sends every episode it has, whatever `limit` asked for.
/// - `nolength`: no `Content-Length` and no chunked encoding: the body ends when the
///   connection closes (HTTP/1.0 framing), so a cut-off body looks whole. With
///   `drop=N` it closes after N bytes.
/// - `endless`: after the resource, zeros without end (and without a length) until
///   the client goes away.
/// - `empty`: a 200 with no body bytes (with `nolength`: a close right after the
///   headers).
/// - `echo-ifrange`: the `ETag` is whatever `If-Range` the request sent (a server
///   that echoes validators instead of checking them).
/// - `redirect-file`: a 302 to `file:///etc/passwd`.
/// - `drop-upload`: the sync API stores the episode actions uploaded, then closes
///   the connection without an answer (a server that stored what the client
///   will think was lost).
/// - `elsewhere`: a request with `Range` that was not sent to `localhost` is
///   redirected (302) to the same URL there: another host answers the resume.
public struct Fault: Sendable, Equatable {
    public var status: Int?
    public var retryAfter: Int?
    public var times: Int?
    public var after: Int?
    public var dropAfter: Int?
    public var shortBy: Int?
    public var ignoreRange = false
    public var version = 0
    public var html = false
    public var delayMilliseconds = 0
    public var rate: Int?
    public var changesAfter: Int?
    public var ignoreIfRange = false
    public var offsetShift = 0
    public var omitContentRange = false
    public var omitValidators = false
    public var gzip = false
    /// Redirects still to send; -1 for a loop.
    public var redirects = 0
    public var ignoreLimit = false
    public var noLength = false
    public var endless = false
    public var empty = false
    public var echoIfRange = false
    public var elsewhere = false
    public var redirectToFile = false
    public var dropUpload = false

    public init() {}

    /// The spec with `redirect=N` counted down by one, for the next hop's URL.
    static func nextHop(_ spec: Substring) -> String {
        spec.split(separator: ",").map { item in
            guard item.hasPrefix("redirect="), let count = Int(item.dropFirst("redirect=".count)) else {
                return String(item)
            }
            return "redirect=\(count - 1)"
        }.joined(separator: ",")
    }

    /// Parses a comma-separated spec such as `status=503,retry-after=1,times=2`.
    public init(spec: Substring) throws(FaultSpecError) {
        for item in spec.split(separator: ",") where !item.isEmpty {
            let parts = item.split(separator: "=", maxSplits: 1)
            let key = parts[0]
            let value = parts.count > 1 ? Int(parts[1]) : nil
            func number() throws(FaultSpecError) -> Int {
                guard let value, value >= 0 else { throw FaultSpecError(item: String(item)) }
                return value
            }
            switch key {
            case "status": status = try number()
            case "retry-after": retryAfter = try number()
            case "times": times = try number()
            case "after": after = try number()
            case "drop": dropAfter = try number()
            case "short": shortBy = try number()
            case "norange": ignoreRange = true
            case "etag": version = try number()
            case "html": html = true
            case "delay": delayMilliseconds = try number()
            case "rate": rate = try number()
            case "changes": changesAfter = try number()
            case "ifrange-ignored": ignoreIfRange = true
            case "offset": offsetShift = try number()
            case "nocr": omitContentRange = true
            case "novalidators": omitValidators = true
            case "gzip": gzip = true
            case "nolimit": ignoreLimit = true
            case "nolength": noLength = true
            case "endless": endless = true
            case "empty": empty = true
            case "echo-ifrange": echoIfRange = true
            case "elsewhere": elsewhere = true
            case "redirect-file": redirectToFile = true
            case "drop-upload": dropUpload = true
            case "redirect": redirects = parts.count > 1 && parts[1] == "loop" ? -1 : try number()
            default: throw FaultSpecError(item: String(item))
            }
        }
    }
}

/// A fault spec the server does not understand; answered with 400.
public struct FaultSpecError: Error, Equatable {
    public let item: String
}
