import PlainText
import Testing

@testable import TerminalKit

@Suite("Status area")
struct StatusAreaTests {
    let progress = ProgressReading(bytes: 500_000, total: 1_000_000, bytesPerSecond: 250_000, eta: .seconds(2))

    @Test func oneLinePerDownloadCutToWidth() {
        let lines = StatusArea.lines(
            [
                .init(tag: "3", title: "The ETag Whisperer", progress: progress),
                .init(tag: "4", title: "Starting", progress: nil),
            ],
            width: 80
        )
        #expect(lines == ["[3] 50.0% of 1.0 MB, 250.0 kB/s, ETA 0:02  The ETag Whisperer", "[4] starting  Starting"])
        let narrow = StatusArea.lines([.init(tag: "3", title: "The ETag Whisperer", progress: progress)], width: 20)
        #expect(narrow.allSatisfy { TextLayout.width($0) <= 20 })
    }

    @Test func summaryWhenMoreThanFit() {
        let entries = (1...6).map { StatusArea.Entry(tag: "\($0)", title: "Episode", progress: progress) }
        #expect(StatusArea.lines(entries, width: 80, maxLines: 4) == ["6 downloads: 50.0% of 6.0 MB, 1.5 MB/s"])
    }

    @Test func nothingWhenIdle() {
        #expect(StatusArea.lines([], width: 80).isEmpty)
    }
}
