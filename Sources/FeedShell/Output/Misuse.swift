import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import ShellKit
import WebBasics

/// How a command was used wrongly, as commands name it: the words to say are
/// written here, with what was typed quoted safely.
enum Misuse: Sendable {
    case notAnHTTPURL(String)
    case notAPostNumber(String)
    case notAnObjectID(String)
    case notASyncServer(String)
    case passwordInSyncURL
    case notAPodcastOrFeed(String)
    /// What `lookup` cannot read: a feed URL (`subscribe` reads it) or anything else.
    case notAPodcast(String)
    case noSubscriptionLoaded
    case nothingToSubscribe
    case noSearchResult(String, count: Int)
    case startsTogether(String, String)
    case noSuchRule(String)
    case badKeep(String)
    case noPassword(user: String, variable: String)
    case badFeedCredentials(FeedCredentialsError)
    case selector(Selector.Problem, noun: String, count: Int?)
    case search(SearchQueryError)
    case noBookmarks
    case bookmarkWithoutEpisode(Int)
    case noSuchBookmark(Int, count: Int)
    case badTime(String)
    case badSleep(String)
    case badDate(String)

    var line: SafeLine {
        switch self {
        case .notAnHTTPURL(let text): "'\(text)' is not an http or https URL"
        case .notAPostNumber(let text): "'\(text)' is not a post number"
        case .notAnObjectID(let text): "'\(text)' is not an object id"
        case .notASyncServer(let text): "'\(URL.redacted(text))' is not an http(s) URL of a sync server"
        case .passwordInSyncURL: "give the password when asked (or in FEEDSH_SYNC_PASSWORD), not in the URL"
        case .notAPodcastOrFeed(let text):
            "'\(URL.redacted(text))' is not a podcast ID, an Apple Podcasts URL or a feed URL"
        case .notAPodcast(let reference):
            Self.notAPodcast(reference)
        case .noSubscriptionLoaded: "no subscription loaded: give its number from 'podcasts'"
        case .nothingToSubscribe: "nothing to subscribe to: give an ID or a feed URL, or load a podcast"
        case .noSearchResult(let text, let count): "no result '\(text)' (1-\(count))"
        case .startsTogether(let first, let second): "--\(first) and --\(second) cannot go together"
        case .noSuchRule(let rule):
            "set podcast N takes autodownload, keep, speed, \(Setting.perPodcast.map(\.name).joined(separator: ", ")), not '\(rule)'"
        case .badKeep(let value): "keep takes a number of files or all, not '\(value)'"
        case .noPassword(let user, let variable): "no password for \(user): type it when asked, or set \(variable)"
        case .badFeedCredentials(let error): "\(error)"
        case .selector(let problem, let noun, let count): "\(problem.description(noun: noun, count: count))"
        case .search(let error): FindText.problem(error)
        case .noBookmarks: "no bookmarks yet: 'b' in mpv while playing, or 'bookmark P:E TIME', makes one"
        case .bookmarkWithoutEpisode(let number): "b\(number)'s episode is no longer in the library"
        case .noSuchBookmark(let number, let count):
            count == 0 ? "no bookmark \(number): there are none" : "no bookmark \(number) (1-\(count))"
        case .badTime(let text): "'\(text)' is not a time: give 12:34, 1:02:03, 95 or 1m30s"
        case .badSleep(let text):
            "'\(text)' is not a sleep timer: give a time from 1s to 24h (30m, 1h, 1:30), end, chapter or off"
        case .badDate(let text): "'\(text)' is not a date: give YYYY-MM-DD"
        }
    }

    private static func notAPodcast(_ reference: String) -> SafeLine {
        let shown = URL.redacted(reference)
        if let url = URL(string: reference), url.scheme == "http" || url.scheme == "https" {
            return """
                '\(shown)' looks like a feed URL: 'subscribe \(shown)' reads it; lookup reads Apple's \
                directory (a podcast ID such as \(Command.defaultPodcastID), or an Apple Podcasts URL)
                """
        }
        return "'\(shown)' is not a podcast ID or an Apple Podcasts URL; find one with 'search NAME'"
    }
}

extension ShellError {
    /// A command used wrongly, and how it is used.
    static func usage(_ misuse: Misuse, synopsis: String) -> ShellError {
        usage(misuse.line, synopsis: synopsis)
    }
}

/// How `find` names what is wrong with its words.
package enum FindText {
    /// What is wrong with the words, naming the word.
    package static func problem(_ error: SearchQueryError) -> SafeLine {
        "\(QueryWords.problem(error))"
    }
}

extension ChaptersFailure {
    var description: String {
        switch self {
        case .missing(let episode):
            "\(episode) has no chapters (its feed gives no podcast:chapters; those inside the file are read once it is downloaded)"
        }
    }
}

extension TranscriptFailure {
    var description: String {
        switch self {
        case .missing(let episode): "\(episode) has no transcript (its feed gives no podcast:transcript)"
        case .unreadable(let episode, let types):
            "\(episode) offers transcripts only as \(types.joined(separator: ", ")), which feedsh does not read"
        case .notInLibrary(let episode):
            "\(episode) is not in the library: transcripts come from a subscription's feed ('subscribe' it)"
        }
    }
}
