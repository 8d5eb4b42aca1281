import Foundation
import Testing

@testable import Sync

@Suite("Episode actions as servers write them")
struct EpisodeActionTests {
    let url = URL(string: "http://127.0.0.1:1/api/2/episodes/alice.json?since=0")!

    func page(_ actions: String, timestamp: String = "1700000000") throws -> ActionPage {
        try ActionPage.decode(Data(#"{"actions": [\#(actions)], "timestamp": \#(timestamp)}"#.utf8), url: url)
    }

    /// gpodder.net's documentation writes timestamps without a zone, opodsync and
    /// Nextcloud with `Z`: both are the same UTC moment.
    @Test(arguments: [
        "2026-11-24T09:00:00", "2026-11-24T09:00:00Z", "2026-11-24T10:00:00+01:00", "2026-11-24T09:00:00.000Z",
    ])
    func timestampsWithAndWithoutZone(text: String) throws {
        let date = try #require(ActionTime.parse(text))
        #expect(date == Date(timeIntervalSince1970: 1_795_510_800))
        #expect(ActionTime.format(date) == "2026-11-24T09:00:00")
    }

    /// An action stamped past tomorrow is skipped: `10000-01-01` would win every
    /// merge for good, and the library could not read its date back.
    @Test func actionsFromTheFutureAreSkipped() throws {
        let soon = ActionTime.format(Date().addingTimeInterval(3600))
        let nextWeek = ActionTime.format(Date().addingTimeInterval(7 * 86400))
        let read = try page(
            [soon, nextWeek, "10000-01-01T00:00:00", "9999-12-31T23:59:59"].map {
                #"{"podcast": "http://f/rss", "episode": "http://f/1.mp3", "action": "new", "timestamp": "\#($0)"}"#
            }.joined(separator: ",")
        )
        #expect(read.actions.count == 1)
        #expect(read.skipped.map(\.reason) == [.badTimestamp, .badTimestamp, .badTimestamp])
    }

    @Test func aPlayActionReadsWithItsNumbers() throws {
        let read = try page(
            #"{"podcast": "http://f/rss", "episode": "http://f/1.mp3", "guid": "g1", "device": "phone", "action": "play", "timestamp": "2026-11-24T09:00:00", "started": 15, "position": 120, "total": 500}"#
        )
        #expect(read.timestamp == 1_700_000_000)
        #expect(read.skipped.isEmpty)
        let action = try #require(read.actions.first)
        #expect(action.kind == .play && action.guid == "g1" && action.device == "phone")
        #expect(action.started == 15 && action.position == 120 && action.total == 500)
    }

    /// Positions of -1 are unknown, positions past the end are the end, and an
    /// unknown kind or a bad timestamp skips that action, naming where it was.
    @Test func badActionsAreSkippedOrMended() throws {
        let read = try page(
            """
            {"podcast": "p", "episode": "e1", "action": "play", "timestamp": "2026-11-24T09:00:00", "position": -1, "total": -1},
            {"podcast": "p", "episode": "e2", "action": "play", "timestamp": "2026-11-24T09:00:00", "position": 900, "total": 500},
            {"podcast": "p", "episode": "e3", "action": "flag", "timestamp": "2026-11-24T09:00:00"},
            {"podcast": "p", "episode": "e4", "action": "new", "timestamp": "yesterday"},
            "not an action",
            {"episode": "e5", "action": "new", "timestamp": "2026-11-24T09:00:00"}
            """
        )
        #expect(read.actions.map(\.episode) == ["e1", "e2"])
        #expect(read.actions[0].position == nil && read.actions[0].total == nil)
        #expect(read.actions[1].position == 500)
        #expect(
            read.skipped == [
                SkippedAction(path: "$.actions[2]", reason: .unknownKind("flag")),
                SkippedAction(path: "$.actions[3]", reason: .badTimestamp),
                SkippedAction(path: "$.actions[4]", reason: .notAnObject),
                SkippedAction(path: "$.actions[5]", reason: .missing("podcast")),
            ]
        )
    }

    /// A reply that is no page at all fails with where it went wrong.
    @Test(arguments: [
        ("<!DOCTYPE html><html><body>Login</body></html>", "HTML, not JSON at $"),
        (#"{"actions": [{"podcast": "p""#, "not JSON at $"),
        (#"{"timestamp": 3}"#, "missing or not a list at $.actions"),
        (#"{"actions": []}"#, "missing or not a number at $.timestamp"),
    ])
    func repliesThatAreNotPagesFailNamingWhere(body: String, said: String) {
        #expect {
            try ActionPage.decode(Data(body.utf8), url: url)
        } throws: { error in
            let error = error as! SyncError
            return error.code == "sync-bad-reply" && error.description.hasSuffix(said)
                && error.description.hasPrefix(url.absoluteString)
        }
    }

    /// What is uploaded carries the numbers only for `play`, and a timestamp the
    /// documentation's way.
    @Test func uploadsAreWrittenAsTheAPISays() {
        var play = EpisodeAction(.play, podcast: "p", episode: "e", at: Date(timeIntervalSince1970: 0))
        (play.guid, play.position, play.total) = ("g", 30, 60)
        #expect(play.wire.timestamp == "1970-01-01T00:00:00")
        #expect(play.wire.position == 30 && play.wire.started == 0 && play.wire.total == 60)
        var download = EpisodeAction(.download, podcast: "p", episode: "e", at: .now)
        download.position = 3
        #expect(download.wire.position == nil && download.wire.action == "download")
        let text = String(decoding: try! JSONEncoder().encode(download.wire), as: UTF8.self)
        #expect(!text.contains("position") && !text.contains("null"), "\(text)")
    }

    @Test(arguments: [("feedsh-laptop", true), ("my laptop", false), ("a/b", false), ("", false), ("x.y_z-1", true)])
    func deviceNamesAreRefusedNamingTheAllowedCharacters(name: String, fine: Bool) {
        do {
            _ = try DeviceName.validate(name)
            #expect(fine)
        } catch {
            #expect(!fine)
            #expect(error.description.contains("letters, digits, '.', '-' and '_'"))
        }
    }
}
