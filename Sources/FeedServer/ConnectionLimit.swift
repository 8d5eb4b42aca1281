import Foundation
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How many connections `serve` keeps open at once, below the open-file limit:
/// every connection holds a descriptor, and so do the library and each file
/// being sent. When a new connection would pass the limit, the connection that
/// has done the least for the longest (one that never finished sending a
/// request's head, or an idle one) is closed to make room, so that a flood of
/// idle or half-sent connections cannot keep anyone else out, as nginx reuses
/// its oldest keep-alive connections. Without a limit, 1,100 idle connections
/// under the usual 1,024 open files stopped the server answering anyone.
final class ConnectionLimit: Sendable {
    /// At most this many connections are open.
    let capacity: Int
    private let connections = Mutex<[ObjectIdentifier: Tracked]>([:])
    /// The limit's own clock: a tick for each activity, which orders without
    /// reading the time.
    private let clock = Atomic<UInt64>(0)

    private struct Tracked {
        let channel: any Channel
        let activity: Activity
    }

    /// When a connection last completed a request's head or wrote a response
    /// part: kept by its handler without a lock (every request touches it), read
    /// under the lock only to choose a connection to close.
    final class Activity: Sendable {
        let last = Atomic<UInt64>(0)
    }

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Half the open-file limit (the other half for files being sent and the
    /// library), between 16 and 4,096.
    static func fromOpenFileLimit() -> ConnectionLimit {
        var limit = rlimit()
        let soft = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        return ConnectionLimit(capacity: min(max(soft / 2, 16), 4096))
    }

    /// How many are open now.
    var count: Int { connections.withLock { $0.count } }

    /// Takes `channel` in; past the capacity, closes the connection that has
    /// been inactive longest (it may be `channel` itself when every other one
    /// is newer, which cannot happen: a new one is the newest).
    func admit(_ channel: any Channel, activity: Activity) {
        touch(activity)
        let evicted: (any Channel)? = connections.withLock { connections in
            connections[ObjectIdentifier(channel)] = Tracked(channel: channel, activity: activity)
            guard connections.count > capacity else { return nil }
            guard
                let oldest = connections.filter({ $0.key != ObjectIdentifier(channel) })
                    .min(by: {
                        $0.value.activity.last.load(ordering: .relaxed)
                            < $1.value.activity.last.load(ordering: .relaxed)
                    })
            else { return nil }
            connections[oldest.key] = nil
            return oldest.value.channel
        }
        evicted?.close(promise: nil)
    }

    /// A connection did something a client's request or our answer is made of.
    func touch(_ activity: Activity) {
        activity.last.store(clock.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
    }

    func remove(_ channel: any Channel) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The handler each connection's pipeline gets (after HTTP decoding: a
    /// half-sent head never reaches it, so it never counts as activity).
    func handler() -> Handler { Handler(limit: self) }

    final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        let limit: ConnectionLimit
        let activity = Activity()

        init(limit: ConnectionLimit) { self.limit = limit }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { limit.admit(context.channel, activity: activity) }
        }

        func channelActive(context: ChannelHandlerContext) {
            limit.admit(context.channel, activity: activity)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            limit.remove(context.channel)
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            limit.remove(context.channel)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) { limit.touch(activity) }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            limit.touch(activity)
            context.write(data, promise: promise)
        }
    }
}
