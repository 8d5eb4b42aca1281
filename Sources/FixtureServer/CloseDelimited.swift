import NIOCore
import NIOHTTP1

/// Responses framed by the connection's close, as HTTP/1.0 servers and some
/// streaming servers send them: no `Content-Length`, no chunked encoding, so a
/// client cannot tell a body cut short from a whole one. Hummingbird always frames
/// HTTP/1.1 bodies, so a response marked with ``marker`` is rewritten on its way out
/// (below Hummingbird, at NIO's HTTP/1 parts) and its body ends by closing.
enum CloseDelimited {
    /// The response header that asks for it; removed before the response is sent.
    static let marker = "X-Fixture-Close-Delimited"
}

/// Installs ``CloseDelimitedRewriter`` next to NIO's response encoder when
/// Hummingbird adds it to a connection's pipeline (its extra handlers come after
/// Hummingbird's own codec; the rewrite must come before NIO's encoder).
final class CloseDelimitedInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
        let operations = context.pipeline.syncOperations
        guard let encoder = try? operations.handler(type: HTTPResponseEncoder.self) else { return }
        try? operations.addHandler(CloseDelimitedRewriter(), position: .after(encoder))
    }
}

/// Rewrites a marked response head to HTTP/1.0 with `Connection: close` and no
/// length, so that NIO's encoder writes the body bytes unframed, and closes the
/// connection once the response's end has been written (the client reads that as
/// the end of the body). A handler of one connection, on its event loop only.
final class CloseDelimitedRewriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The response being written is close-delimited.
    private var closesAtEnd = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .end = part, closesAtEnd {
            closesAtEnd = false
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
            return
        }
        guard case .head(var head) = part, head.headers.contains(name: CloseDelimited.marker) else {
            context.write(data, promise: promise)
            return
        }
        closesAtEnd = true
        head.headers.remove(name: CloseDelimited.marker)
        head.headers.remove(name: "content-length")
        head.headers.remove(name: "transfer-encoding")
        head.headers.replaceOrAdd(name: "connection", value: "close")
        head.version = .http1_0
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
