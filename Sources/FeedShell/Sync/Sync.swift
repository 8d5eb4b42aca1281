import Foundation
import Library
import ShellKit
import Sync

extension Command {
    static let sync = Command(
        CommandSpec(
            "sync",
            summary: "sync subscriptions and play state with a gpodder.net or Nextcloud server",
            details: """
                'sync login URL USER' sets up an account on a gpodder.net API v2 server
                (gpodder.net, opodsync, mygpo) or, with --nextcloud, a Nextcloud with
                gPodder Sync; the device is named by --device (letters, digits, '.', '-',
                '_'), else feedsh-HOST. The password is asked without echo or taken from
                FEEDSH_SYNC_PASSWORD, and kept in LIBRARY-sync.json beside the library,
                readable by you only; never in the library or the history. 'sync' sends
                the subscriptions made and removed here and what was played, marked,
                downloaded and deleted, then follows other devices: their subscriptions
                are subscribed to (the feed read at once) or removed (files kept), and
                their positions and played marks are merged, the newest winning.
                Changes wait in the library until a server acknowledged them, so an
                offline or interrupted sync loses nothing. 'sync status' shows the
                account, the last sync and what waits; 'sync logout' forgets the login.
                """,
            subcommands: [
                CommandSpec(
                    "login",
                    summary: "set up the account to sync with",
                    arguments: [server.spec, user.spec],
                    flags: [device.spec, nextcloud.spec]
                ),
                CommandSpec("status", summary: "the account, the last sync and what waits to be sent"),
                CommandSpec("logout", summary: "forget the account and its password"),
            ],
            verbOptional: true,
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let session = context.session
        switch arguments.subcommand {
        case "login":
            let text = try arguments.required(server)
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw .usage(.notASyncServer(text), synopsis: arguments.synopsis)
            }
            guard url.user == nil, url.password == nil else {
                throw .usage(.passwordInSyncURL, synopsis: arguments.synopsis)
            }
            let name = try arguments.required(user)
            let account = SyncAccount(
                server: url,
                user: name,
                device: arguments[device] ?? DeviceName.standard,
                flavor: arguments[nextcloud] ? .nextcloud : .gpodder
            )
            let password = try await askPassword(
                for: name,
                at: url,
                given: session.configuration.syncPassword,
                variable: "FEEDSH_SYNC_PASSWORD",
                synopsis: "sync login URL USER",
                context
            )
            let earlier = try await session.services.sync.syncLogIn(SyncLogin(account: account, password: password))
            return LoggedIn(server: url, user: name, device: account.device, earlierPlays: earlier)
        case "status":
            return SyncStatusShown(status: try await session.services.sync.syncStatus())
        case "logout":
            let login = try session.services.sync.syncLogin()
            _ = SyncLogin.remove(session.services.sync.syncLoginFile)
            return LoggedOut(server: login.account.server)
        default:
            let login = try session.services.sync.syncLogin()
            return Synced(report: try await session.sync(), account: login.account)
        }
    }
}

/// The account `sync login` set up, and how many plays made before it the next
/// sync sends.
struct LoggedIn: CommandResult {
    let server: URL
    let user: String
    let device: String
    let earlierPlays: Int
}

/// The server `sync logout` forgot.
struct LoggedOut: CommandResult {
    let server: URL
}

/// The account, the last sync and what waits, as `sync status` shows them.
struct SyncStatusShown: CommandResult {
    let status: SyncStatus
}

/// What a sync with `account` sent and merged.
struct Synced: CommandResult {
    let report: SyncReport
    let account: SyncAccount
}

extension DeviceName {
    /// `feedsh-HOST`, the host name's characters the API cannot take left out.
    static var standard: String {
        let host = ProcessInfo.processInfo.hostName.unicodeScalars.filter {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
        }
        let name = String(String.UnicodeScalarView(host.prefix(57)))
        return name.isEmpty ? "feedsh" : "feedsh-" + name
    }
}

extension Command {
    private static let server = CommandArgument<String>("URL")
    private static let user = CommandArgument<String>("USER")
    private static let device = CommandOption<String>(
        "device",
        placeholder: "NAME",
        parse: { try? DeviceName.validate($0) },
        problem: { SyncError.badDeviceName($0).description }
    )
    private static let nextcloud = CommandFlag("nextcloud")
}
