import NIOCore
import NIOEmbedded
import Testing

@testable import FeedServer

/// Past its capacity, the limit closes the connection that did least for longest.
@Suite struct ConnectionLimitTests {
    @Test func theConnectionInactiveLongestMakesRoom() async throws {
        let limit = ConnectionLimit(capacity: 2)
        let (first, second, third) = (EmbeddedChannel(), EmbeddedChannel(), EmbeddedChannel())
        let (a, b, c) = (ConnectionLimit.Activity(), ConnectionLimit.Activity(), ConnectionLimit.Activity())
        for channel in [first, second, third] {
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        }
        limit.admit(first, activity: a)
        limit.admit(second, activity: b)
        // The first answers a request: the second is now the one idle longest.
        limit.touch(a)
        limit.admit(third, activity: c)
        #expect(limit.count == 2)
        #expect(first.isActive && third.isActive)
        #expect(!second.isActive)
        limit.remove(first)
        #expect(limit.count == 1)
    }
}
