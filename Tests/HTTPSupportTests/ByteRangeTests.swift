import Testing

@testable import HTTPSupport

/// The Range header as the fixture server and `feedsh serve` answer it.
@Suite struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-", 10, ByteRangeRequest.satisfiable(0..<10)),
        // One byte; the last byte; a suffix; past the end.
        ("bytes=0-0", 10, .satisfiable(0..<1)),
        ("bytes=9-", 10, .satisfiable(9..<10)),
        ("bytes=9-9", 10, .satisfiable(9..<10)),
        ("bytes=-1", 10, .satisfiable(9..<10)),
        ("bytes=-4", 10, .satisfiable(6..<10)),
        ("bytes=10-", 10, .unsatisfiable),
        ("bytes=10-20", 10, .unsatisfiable),
        ("bytes=5-30", 10, .satisfiable(5..<10)),
        ("bytes=5-3", 10, .none),
        ("bytes=-0", 10, .unsatisfiable),
        ("bytes=-20", 10, .satisfiable(0..<10)),
        ("bytes=0-1,3-4", 10, .none),
        ("items=0-1", 10, .none),
        ("bytes=x-", 10, .none),
        ("bytes=0-", 0, .unsatisfiable),
    ])
    func parsesRanges(header: String, length: Int, expected: ByteRangeRequest) {
        #expect(ByteRangeRequest(header: header, length: length) == expected)
    }
}
