import Testing

@testable import PlainText

@Suite("Byte counts")
struct ByteCountTextTests {
    @Test(arguments: [
        (999, "999 B"), (1000, "1.0 kB"), (999_949, "999.9 kB"), (999_950, "1.0 MB"), (1_000_000, "1.0 MB"),
        (999_949_999, "999.9 MB"), (999_950_000, "1.00 GB"), (12_345_678_901, "12.35 GB"),
    ])
    func theUnitChangesBeforeTheNumberReaches1000(count: Int, text: String) {
        #expect(ByteCountText.format(count) == text)
    }

    @Test func aRateJustUnderAMegabyteASecondReadsInMegabytes() {
        #expect(ByteCountText.format(999_999.0) == "1.0 MB")
    }
}

@Suite("Spans of listening")
struct SpanTextTests {
    @Test(arguments: [(45.0, "45s"), (725, "12m 05s"), (3599.4, "59m 59s"), (3600, "1h 00m"), (7500, "2h 05m")])
    func minutesShowTheirSecondsBelowAnHour(seconds: Double, text: String) {
        #expect(SpanText.listened(seconds) == text)
    }
}
