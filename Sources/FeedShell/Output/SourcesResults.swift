import FeedKit
import FeedServices
import PlainText
import Sync

extension SavedImage: CommandResult {
    func text(on page: Page) -> String? { Render.savedImage(self) }
    func encode(to encoder: any Encoder) throws { try JSONRender.savedImage(self).encode(to: encoder) }
}

extension MetFound {
    func text(on page: Page) -> String? {
        guard outcome.total > 0 else { return SafeLine("no objects match '\(query)'").description }
        return page.render(Render.metSearch(outcome)) + (Render.metSearchFooter(outcome).map { "\n" + $0 } ?? "")
    }

    func encode(to encoder: any Encoder) throws { try JSONRender.metSearch(outcome).encode(to: encoder) }
}

extension MetObjectShown {
    func text(on page: Page) -> String? { Render.metObject(object, width: page.width) }
    func encode(to encoder: any Encoder) throws { try JSONRender.metObject(object).encode(to: encoder) }
}

extension PostList {
    func text(on page: Page) -> String? {
        guard !posts.isEmpty else { return user.map { "user \($0) has no posts" } ?? "no posts" }
        let footer = posts.count > limit ? "\n(\(limit) of \(posts.count) posts; --limit N shows more)" : ""
        return page.render(Render.posts(Array(posts.prefix(limit)))) + footer
    }

    func encode(to encoder: any Encoder) throws {
        try JSONValue.array(posts.prefix(limit).map { JSONRender.post($0) }).encode(to: encoder)
    }
}

extension PostShown {
    func text(on page: Page) -> String? { Render.post(post, comments: comments, width: page.width) }
    func encode(to encoder: any Encoder) throws { try JSONRender.post(post, comments: comments).encode(to: encoder) }
}

extension LoggedIn {
    func text(on page: Page) -> String? {
        let plays =
            earlierPlays == 0 ? "" : " (and sends \(earlierPlays) earlier \(earlierPlays == 1 ? "play" : "plays"))"
        return SafeLine(
            "logged in to \(server.absoluteString) as \(user), device \(device); 'sync' syncs now\(plays)"
        ).description
    }
}

extension LoggedOut {
    func text(on page: Page) -> String? {
        SafeLine("logged out of \(server.absoluteString); what waits to be sent stays in the library").description
    }
}

extension SyncStatusShown {
    func text(on page: Page) -> String? { Render.syncStatus(status) }
    func encode(to encoder: any Encoder) throws { try JSONRender.syncStatus(status).encode(to: encoder) }
}

extension Synced {
    func text(on page: Page) -> String? { Render.sync(report, account: account) }
    func encode(to encoder: any Encoder) throws { try JSONRender.sync(report, account: account).encode(to: encoder) }
}
