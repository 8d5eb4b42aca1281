import PlainText
import Testing

@testable import TerminalKit

@Suite("Word wrapping")
struct WrapTests {
    @Test func breaksAtWordBoundaries() {
        let text = "Returns at once; progress and results print as they come."
        let wrapped = TextLayout.wrap(text, toWidth: 20)
        #expect(wrapped == "Returns at once;\nprogress and results\nprint as they come.")
        #expect(wrapped.split(separator: "\n").allSatisfy { TextLayout.width(String($0)) <= 20 })
    }

    @Test func keepsLineBreaksIndentationAndListItems() {
        let text = "Notes:\n  - a list item that is long enough to wrap\n3. numbered item that wraps too"
        #expect(
            TextLayout.wrap(text, toWidth: 24)
                == "Notes:\n  - a list item that is\n    long enough to wrap\n3. numbered item that\n   wraps too"
        )
    }

    @Test func cutsWordsLongerThanALineAndCountsWideCharacters() {
        #expect(
            TextLayout.wrap("a https://example.com/very/long/path b", toWidth: 12)
                == "a\nhttps://\nexample.\ncom/very/\nlong/path b"
        )
        // After a joint in the line's second half, else where the room ends.
        #expect(TextLayout.wrap("FEEDSH_PODCASTINDEX_SECRET", toWidth: 24) == "FEEDSH_PODCASTINDEX_\nSECRET")
        #expect(TextLayout.wrap("A_BCDEFGHIJKLMNOP", toWidth: 8) == "A_BCDEFG\nHIJKLMNO\nP")
        // Each CJK character takes two columns.
        let wide = String(repeating: "\u{97F3}", count: 7)
        #expect(TextLayout.wrap(wide, toWidth: 6) == "\u{97F3}\u{97F3}\u{97F3}\n\u{97F3}\u{97F3}\u{97F3}\n\u{97F3}")
        #expect(TextLayout.rows(wide, columns: 6) == 3)
        #expect(TextLayout.rows("", columns: 6) == 1)
    }

    @Test func truncatesKeepingTheEnd() {
        #expect(
            TextLayout.truncate(keepingEnd: "/downloads/1386867488/1000700000002.mp3", toWidth: 20)
                == "…8/1000700000002.mp3"
        )
        #expect(TextLayout.truncate(keepingEnd: "short", toWidth: 20) == "short")
    }
}

@Suite("Tables")
struct TableTests {
    let table = Table(
        columns: [.init("#", rightAligned: true), .init("Status", maxWidth: 10), .init("Title")],
        rows: [
            ["1", "downloaded", "Ports"],
            ["10", "failed: HTTP 404 Not Found from http://127.0.0.1", "A title that stays readable"],
        ]
    )

    @Test func boundedColumnsLeaveRoomForTheLast() {
        #expect(
            table.render(width: 44)
                == " #  Status      Title\n 1  downloaded  Ports\n10  failed: H…  A title that stays readable"
        )
    }

    /// Piped (no width), each row is one line: bounded columns cut, the rest padded
    /// to their widest cell by display width, the last as it is.
    @Test func withoutAWidthEveryRowIsOneLine() {
        let wide = Table(
            columns: [
                .init("#", rightAligned: true), .init("Path", maxWidth: 8, keepsEnd: true),
                .init("Title", wraps: true), .init("Notes", wraps: true),
            ],
            rows: [
                ["1", "/a/b/c/d/e.mp3", "\u{97F3}\u{97F3} wide", "a note long enough to wrap anywhere"],
                ["10", "", "Ports", ""],
            ]
        )
        #expect(
            wide.render(width: nil)
                == """
                 #  Path      Title      Notes
                 1  …d/e.mp3  \u{97F3}\u{97F3} wide  a note long enough to wrap anywhere
                10            Ports      
                """
        )
        #expect(
            table.render(width: nil)
                == " #  Status      Title\n 1  downloaded  Ports\n10  failed: H…  A title that stays readable"
        )
    }

    @Test func followsTheWidthItIsGivenAndBoldsTheHeading() {
        let narrow = table.render(width: 24).split(separator: "\n")
        #expect(narrow.allSatisfy { TextLayout.width(String($0)) <= 24 })
        #expect(narrow[2].hasSuffix("…"))
        #expect(table.render(width: nil, bold: true).hasPrefix("\u{1B}[1m #  Status      Title\u{1B}[0m\n"))
    }

    @Test func aLastColumnOfPathsKeepsItsEnd() {
        let paths = Table(
            columns: [.init("#"), .init("File", keepsEnd: true)],
            rows: [["1", "/a/long/folder/name/1000.mp3"]]
        )
        #expect(paths.render(width: 18) == "#  File\n1  …/name/1000.mp3")
    }

    /// Columns that give way do so in their declared steps: the podcast shrinks,
    /// then the path (to what still names the file), then the title; then the
    /// path goes and its room goes back to the title and the podcast; the status
    /// gives way last.
    @Test func columnsGiveWayInTheirOrderAndTitlesKeepTheirWords() {
        let downloads = Table(
            columns: [
                .init("#"), .init("Status", fit: .init(order: 6, minWidth: 10)),
                .init("Podcast", fit: .init(order: 1, minWidth: 4, dropOrder: 5)),
                .init("Title", fit: .init(order: 3, minWidth: 14)),
                .init("File", keepsEnd: true, fit: .init(order: 2, minWidth: 12, dropOrder: 4)),
            ],
            rows: [
                ["1:1", "50% of 6 MB, ETA 0:09", "Loopback Radio", "Ports and Sockets", "1386867488/1000700000001.mp3"]
            ]
        )
        func row(_ width: Int) -> String { String(downloads.render(width: width).split(separator: "\n")[1]) }
        // Wide enough: nothing gives way.
        #expect(
            row(100) == "1:1  50% of 6 MB, ETA 0:09  Loopback Radio  Ports and Sockets  1386867488/1000700000001.mp3"
        )
        // The podcast shrinks first, then the path, keeping the file's name.
        #expect(row(81) == "1:1  50% of 6 MB, ETA 0:09  Loo…  Ports and Sockets  1386867488/1000700000001.mp3")
        #expect(row(70) == "1:1  50% of 6 MB, ETA 0:09  Loo…  Ports and Sockets  …000700000001.mp3")
        // Too narrow for the path: it goes, and what it held goes back.
        #expect(row(56) == "1:1  50% of 6 MB, ETA 0:09  Loopback…  Ports and Sockets")
        // Then the podcast goes; the status stays whole while the title has words.
        #expect(row(46) == "1:1  50% of 6 MB, ETA 0:09  Ports and Sockets")
        #expect(row(30).hasPrefix("1:1  50% of 6 …  Ports and"))
        #expect(downloads.render(width: 30).split(separator: "\n").allSatisfy { TextLayout.width(String($0)) <= 30 })
    }

    /// On a terminal, columns that wrap keep every word: the row grows under
    /// itself, the last column takes what is left and wraps too, and a
    /// continuation ends where its text does. Unknown widths wrap nothing.
    @Test func wrappingColumnsKeepEveryWordOnANarrowTerminal() {
        let bookmarks = Table(
            columns: [
                .init("#"), .init("Podcast", wraps: true, fit: .init(order: 2, minWidth: 8)),
                .init("Title", wraps: true, fit: .init(order: 3, minWidth: 10)), .init("At", rightAligned: true),
                .init("Note", wraps: true, fit: .init(order: 1, minWidth: 12)),
            ],
            rows: [["b1", "Loopback Radio", "Ports, Sockets and Listening", "0:05", "a note that must wrap somewhere"]]
        )
        #expect(
            bookmarks.render(width: 50).split(separator: "\n") == [
                "#   Podcast   Title               At  Note",
                "b1  Loopback  Ports, Sockets    0:05  a note that",
                "    Radio     and Listening           must wrap",
                "                                      somewhere",
            ]
        )
        // Wide enough: one line each, nothing given way.
        #expect(
            bookmarks.render(width: 100).split(separator: "\n")[1]
                == "b1  Loopback Radio  Ports, Sockets and Listening  0:05  a note that must wrap somewhere"
        )
        #expect(bookmarks.render(width: nil).split(separator: "\n").count == 2)
    }
}

@Suite("Colour, pager and formatting rules")
struct RuleTests {
    @Test(arguments: [
        (true, false, [String: String](), true),
        (false, false, [:], false),
        (true, true, [:], false),
        (true, false, ["NO_COLOR": ""], false),
        (true, false, ["TERM": "dumb"], false),
        (true, false, ["TERM": "xterm-256color"], true),
    ])
    func colour(isTerminal: Bool, flag: Bool, environment: [String: String], allowed: Bool) {
        #expect(ColorRule.allows(isTerminal: isTerminal, noColorFlag: flag, environment: environment) == allowed)
    }

    @Test func pagerCommandAndWhenItIsNeeded() {
        #expect(Pager.command(environment: [:]) == "less -FRX")
        #expect(Pager.command(environment: ["PAGER": "more"]) == "more")
        #expect(Pager.command(environment: ["PAGER": ""]) == nil)
        let lines = (1...10).map(String.init).joined(separator: "\n")
        #expect(!Pager.needed(lines, rows: 24, columns: 80))
        #expect(Pager.needed(lines, rows: 10, columns: 80))
        // Wrapped lines count as the rows they take.
        #expect(Pager.needed(String(repeating: "x", count: 400), rows: 5, columns: 80))
    }

    @Test func ratesAreUnknownUntilMeasured() {
        #expect(Formatting.rate(nil) == "…/s")
        #expect(Formatting.rate(1_000_000) == "1.0 MB/s")
        let reading = ProgressReading(bytes: 500, total: 1000, bytesPerSecond: nil, eta: nil)
        #expect(reading.text == "50.0% of 1.0 kB, …/s")
    }
}
