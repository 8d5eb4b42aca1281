import Hummingbird
import NIOCore

/// What `serve`'s routes know of a request beyond it: Hummingbird's core context
/// and the connection it came on, whose writability paces a file's answer
/// (``MediaFiles``).
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection: a large answer waits while it cannot take more.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
