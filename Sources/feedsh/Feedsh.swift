import ArgumentParser
import Assistant
import FeedKit
import FeedServer
import FeedServices
import FeedShell
import FixtureServer
import Foundation
import HTTPSupport
import LineEditor
import PlainText
import Processes
import ShellKit
import TerminalKit
import WebBasics

/// `feedsh`: parses flags, wires the shell to its inputs, and maps the outcome to an
/// exit status. Everything else lives in the libraries.
struct Feedsh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedsh",
        abstract: "A terminal shell for podcasts, posts and museum collections.",
        usage: """
            feedsh [options]                   (interactive on a terminal, else commands from stdin)
              feedsh [options] -c 'CMD; CMD'
              feedsh [options] -f FILE
              feedsh serve [--listen ADDR:PORT] [--update-every DURATION] [--json] [--no-web]
              feedsh mcp [--allow-changes]
              feedsh serve-fixtures [--port N] [--rate BYTES]
            """,
        discussion: """
            Interactive when standard input is a terminal; otherwise it reads commands
            from standard input. Type 'help' in the shell for its commands.

            Exit status: 0 when every command succeeded, 1 when one failed, 2 for a
            usage error, 130 when interrupted (SIGINT), 129 on SIGHUP, 143 on SIGTERM.
            """,
        version: FeedKitVersion.current,
        subcommands: [Serve.self, MCPServer.self, ServeFixtures.self]
    )

    @Option(name: .short, help: ArgumentHelp("Run the commands in FILE.", valueName: "file"), completion: .file())
    var file: String?

    @Option(name: .short, help: ArgumentHelp("Run these commands, separated by ';'.", valueName: "commands"))
    var commands: String?

    @Flag(
        help: """
            Serve the built-in fixtures on 127.0.0.1 and use them for every API (works offline), with a \
            library and downloads of its own.
            """
    )
    var demo = false

    @Option(help: ArgumentHelp("iTunes API root (env FEEDSH_ITUNES_URL).", valueName: "url"))
    var itunesURL: String?

    @Option(help: ArgumentHelp("Posts API root (env FEEDSH_POSTS_URL).", valueName: "url"))
    var postsURL: String?

    @Option(help: ArgumentHelp("Met collection API root (env FEEDSH_MET_URL).", valueName: "url"))
    var metURL: String?

    @Option(
        name: .customLong("index-url"),
        help: ArgumentHelp(
            "Podcast Index API root (env FEEDSH_PODCASTINDEX_URL; default https://api.podcastindex.org/api/1.0).",
            valueName: "url"
        )
    )
    var indexURL: String?

    @Option(
        help: ArgumentHelp(
            "Where episodes are saved (env FEEDSH_DOWNLOAD_DIR; default $XDG_DATA_HOME/feedsh/downloads).",
            valueName: "dir"
        ),
        completion: .directory
    )
    var downloadDir: String?

    @Option(
        help: ArgumentHelp(
            "Where fetched images are kept (env FEEDSH_CACHE_DIR; default $XDG_CACHE_HOME/feedsh).",
            valueName: "dir"
        ),
        completion: .directory
    )
    var cacheDir: String?

    @Option(
        help: ArgumentHelp(
            "The podcast library (env FEEDSH_LIBRARY; default $XDG_DATA_HOME/feedsh/library.sqlite).",
            valueName: "file"
        ),
        completion: .file()
    )
    var library: String?

    @Flag(help: "Continue a script after a command fails (the exit status is still 1).")
    var keepGoing = false

    @Option(help: ArgumentHelp("Download transport: ahc (AsyncHTTPClient) or urlsession.", valueName: "engine"))
    var engine: DownloadEngine = .ahc

    @Option(
        help: ArgumentHelp(
            "Downloads that run at once; the rest are queued (default: the max-concurrent setting, else 3).",
            valueName: "n"
        )
    )
    var maxConcurrent: Int?

    @Option(
        name: .customLong("max-filesize"),
        help: ArgumentHelp(
            "The largest file a download may be, as curl writes it: 500M, 4G (default: the max-size setting, else 4G).",
            valueName: "size"
        )
    )
    var maxFileSize: FileSize?

    @Option(
        help: ArgumentHelp(
            "Cap the total download rate, bytes a second as curl writes it: 200k, 1.5M (default: the rate-limit setting, else none).",
            valueName: "rate"
        )
    )
    var limitRate: String?

    @Flag(help: "Write every result, event and error as one JSON object a line on standard output.")
    var json = false

    @Flag(help: "No colour or styling (also when NO_COLOR is set, TERM=dumb or output is not a terminal).")
    var noColor = false

    @Flag(help: "Print long results at the prompt without a pager (default: $PAGER, else less -FRX).")
    var noPager = false

    @Flag(help: "At the end of a script, hand running downloads to a background feedsh instead of waiting.")
    var detach = false

    @Flag(help: .hidden)
    var background = false

    @Flag(help: .hidden)
    var generateManCommands = false

    func validate() throws {
        if file != nil && commands != nil {
            throw ValidationError("-f and -c cannot be used together.")
        }
        if let maxConcurrent, !(1...64).contains(maxConcurrent) {
            throw ValidationError("--max-concurrent must be from 1 to 64.")
        }
        if let limitRate, ByteSize.atLeast1k(limitRate) == nil {
            throw ValidationError(
                "--limit-rate takes a rate of at least 1k a second, such as 200k or 1.5M, not '\(limitRate)'."
            )
        }
        for (flag, value) in [("--download-dir", downloadDir), ("--cache-dir", cacheDir), ("--library", library)]
        where value?.isEmpty == true {
            throw ValidationError("\(flag) must name a directory, not be empty.")
        }
    }

    func run() async throws {
        try await execute()
    }

    /// The command's work; `main.swift` calls it by this name because a call to
    /// `run()` resolves to ArgumentParser's synchronous default, which prints help.
    func execute() async throws {
        if generateManCommands {
            // The man page's command list, from the same specs as `help`.
            FileHandle.standardOutput.write(Data(HelpText.manPage(CommandRegistry.standard.specs).utf8))
            return
        }
        // Read once: each read of ProcessInfo's environment builds the dictionary again.
        let environment = ProcessInfo.processInfo.environment
        var endpoints = Endpoints()
        endpoints.itunes =
            try url(itunesURL, env: "FEEDSH_ITUNES_URL", flag: "--itunes-url", in: environment) ?? endpoints.itunes
        endpoints.posts =
            try url(postsURL, env: "FEEDSH_POSTS_URL", flag: "--posts-url", in: environment) ?? endpoints.posts
        endpoints.met = try url(metURL, env: "FEEDSH_MET_URL", flag: "--met-url", in: environment) ?? endpoints.met
        endpoints.podcastIndex =
            try url(indexURL, env: "FEEDSH_PODCASTINDEX_URL", flag: "--index-url", in: environment)
            ?? endpoints.podcastIndex
        var indexKey = setting("FEEDSH_PODCASTINDEX_KEY", in: environment)
        var indexSecret = setting("FEEDSH_PODCASTINDEX_SECRET", in: environment)

        var demoServer: FixtureServer?
        // The demo's library, downloads and cache: a folder of its own, so that the
        // real library never sees demo feeds (only flags say otherwise).
        var demoFolder: URL?
        if demo {
            let server = try await FixtureServer.start(.init(mediaRate: 1_000_000))
            endpoints = Endpoints(allAt: server.baseURL)
            // The fixture Index accepts its own key, so that `search --index` works.
            if indexKey == nil, indexSecret == nil {
                indexKey = FixtureServer.podcastIndexKey
                indexSecret = FixtureServer.podcastIndexSecret
            }
            demoServer = server
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("feedsh-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            demoFolder = folder
            let own = [library == nil ? "library" : nil, downloadDir == nil ? "downloads" : nil].compactMap { $0 }
            let whereText = own.isEmpty ? "" : "; \(own.joined(separator: " and ")) in \(folder.path) (removed at exit)"
            let hello = """
                demo: serving fixtures at \(server.baseURL.absoluteString)\(whereText)
                demo: 'sync login \(server.baseURL.absoluteString) demo' syncs with its gpodder.net API
                demo: try 'lookup', 'subscribe', 'episodes', 'get 1:1', 'wait', 'play 1:1', 'find ports', \
                'search swift', 'help'
                """
            // On a terminal, broken between words rather than where the screen ends.
            let shown =
                isatty(STDERR_FILENO) == 1
                ? TextLayout.wrap(hello, toWidth: TerminalSize.columns(of: STDERR_FILENO)) : hello
            FileHandle.standardError.write(Data((shown + "\n").utf8))
        }
        defer { if let demoFolder { try? FileManager.default.removeItem(at: demoFolder) } }

        var proxies: ProxyEnvironment
        do throws(ProxyError) {
            proxies = try ProxyEnvironment(environment: environment)
        } catch {
            throw ValidationError("\(error.description).")
        }
        // The demo's own server is on loopback: never through a proxy (libcurl,
        // under the urlsession engine, reads no_proxy itself).
        if demo, !proxies.isEmpty {
            proxies.noProxy.append("127.0.0.1")
            setenv("no_proxy", proxies.noProxy.joined(separator: ","), 1)
        }
        let paths = XDGPaths(environment: environment)
        var configuration = Configuration(
            endpoints: endpoints,
            downloadDirectory: URL(
                fileURLWithPath: downloadDir ?? demoFolder?.appendingPathComponent("downloads").path
                    ?? setting("FEEDSH_DOWNLOAD_DIR", in: environment) ?? paths.downloads.path
            ),
            cacheDirectory: URL(
                fileURLWithPath: cacheDir ?? demoFolder?.appendingPathComponent("cache").path
                    ?? setting("FEEDSH_CACHE_DIR", in: environment) ?? paths.cache.path
            ),
            libraryFile: URL(
                fileURLWithPath: library ?? demoFolder?.appendingPathComponent("library.sqlite").path
                    ?? setting("FEEDSH_LIBRARY", in: environment) ?? paths.library.path
            ),
            historyFile: paths.history,
            keepGoing: keepGoing,
            engine: engine,
            maxConcurrent: maxConcurrent ?? 3,
            maxConcurrentGiven: maxConcurrent != nil,
            maxFileSize: maxFileSize?.bytes,
            player: setting("FEEDSH_PLAYER", in: environment),
            detach: detach,
            demo: demo,
            pager: noPager ? nil : Pager.command(environment: environment),
            podcastIndexKey: indexKey,
            podcastIndexSecret: indexSecret,
            proxies: proxies,
            rateLimit: limitRate.flatMap(ByteSize.atLeast1k),
            feedPassword: environment["FEEDSH_FEED_PASSWORD"],
            // The demo's sync API takes any user with its one password.
            syncPassword: environment["FEEDSH_SYNC_PASSWORD"]
                ?? (demo ? FixtureServer.syncPassword : nil)
        )
        // A script (`-c`, `-f`, stdin that is no terminal, `--json`) runs one command at
        // a time: one connection to the library, and a command that only reads
        // writes nothing to it. The prompt and the background feedsh keep a pool.
        if !background, !runsThePrompt {
            configuration.libraryConnections = .one
        }
        // The one composition root of this process: the front end asked for gets
        // these services.
        let services = Services(configuration: configuration)
        if background {
            // The background feedsh (see 'detach'): no terminal, no shell.
            let status = await BackgroundService.run(services: services)
            if status != .success { throw ExitCode(status.rawValue) }
            return
        }
        let shell = Shell(services: services, console: .standard(json: json, noColor: noColor))
        await shell.start()
        let status = await run(shell)
        await shell.close()
        await demoServer?.stop()
        if status != .success {
            throw ExitCode(status.rawValue)
        }
    }

    private func run(_ shell: Shell) async -> ExitStatus {
        if let commands {
            return await shell.runScript(ScriptLines(text: commands, source: nil), keepGoing: keepGoing)
        }
        if let file {
            // Read as a stream: FIFOs, `-f <(...)` and `-f /dev/stdin` work too.
            let fd: Int32
            do throws(ScriptFileError) {
                fd = try ScriptFile.open(file)
            } catch {
                FileHandle.standardError.write(Data("feedsh: cannot read \(file): \(error.reason)\n".utf8))
                return .usage
            }
            defer { close(fd) }
            return await shell.runScriptFile(file, fd: fd, keepGoing: keepGoing)
        }
        if runsThePrompt,
            let editor = LineEditor(
                programName: "feedsh",
                historyFile: shell.session.configuration.historyFile,
                completer: { [shell] text in shell.complete(text) }
            )
        {
            return await shell.runInteractive(editor: editor)
        }
        return await shell.runScript(ScriptLines(fd: STDIN_FILENO, source: "<stdin>"), keepGoing: keepGoing)
    }

    /// Whether this run is the prompt: no `-c` or `-f`, a terminal on standard
    /// input, and no `--json` (JSON is for programs: it reads plain lines even from
    /// a terminal). Else its commands are a script.
    private var runsThePrompt: Bool {
        commands == nil && file == nil && !json && isatty(STDIN_FILENO) == 1
    }

    /// An environment variable that is set and not empty (an empty one would make a
    /// directory of the current one).
    private func setting(_ name: String, in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    private func url(_ flag: String?, env name: String, flag flagName: String, in environment: [String: String]) throws
        -> URL?
    {
        guard let text = flag ?? environment[name], !text.isEmpty else { return nil }
        guard let url = URL(httpString: text) else {
            let source = flag != nil ? flagName : name
            throw ValidationError("\(source) must be an http or https URL, not '\(text)'.")
        }
        return url
    }
}

/// `feedsh serve-fixtures`: the fixture server on its own, for trying other clients.
/// `feedsh serve`: flags only; the work is ``FeedServer/ServeFrontEnd``.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve your library as a web player and your downloads as podcast feeds, for any podcast app.",
        discussion: """
            Serves a web page at / (your subscriptions, episodes, queue, find, bookmarks and listening \
            statistics, and a player that saves your place in the library, as the terminal's does; \
            --no-web leaves it out), /feeds/all.xml (every downloaded episode, newest first), /feeds/P.xml (subscription \
            P's), /feeds/queue.xml (the play queue) and /subscriptions.opml, with the files under /media/ \
            (ranges, ETags). Beyond loopback it wants a password (FEEDSH_SERVE_PASSWORD, or 'set \
            serve-password' in the shell), and every route then asks for it with Basic auth (any user \
            name). One line per request on standard error. SIGTERM or Ctrl-C lets the requests in flight \
            and an update's writes finish, then exits 0. The library and download folder are the shell's \
            (FEEDSH_LIBRARY, FEEDSH_DOWNLOAD_DIR).
            """
    )

    @Option(help: ArgumentHelp("Address and port to listen on (port 0 picks a free one).", valueName: "addr:port"))
    var listen = "127.0.0.1:8786"

    @Option(
        help: ArgumentHelp(
            "Update every subscription this often (30m, 1h), downloading new episodes by the auto-download rules.",
            valueName: "duration"
        )
    )
    var updateEvery: String?

    @Flag(help: "Log each request and update as one JSON object a line.")
    var json = false

    @Flag(help: "Serve only the feeds, OPML and files: no web page at / and no /api/.")
    var noWeb = false

    @OptionGroup var paths: LibraryPaths
    @ParentCommand var root: Feedsh

    /// `--update-every`, read.
    var interval: Duration? {
        get throws {
            guard let updateEvery else { return nil }
            guard let seconds = ServeFrontEnd.duration(updateEvery), seconds >= 1 else {
                throw ValidationError("--update-every takes a duration such as 30m or 1h, not '\(updateEvery)'.")
            }
            return .seconds(seconds)
        }
    }

    func validate() throws {
        guard ServeFrontEnd.listenAddress(listen) != nil else {
            throw ValidationError("\(ServeFrontEnd.Refusal.badListen(listen)).")
        }
        _ = try interval
    }

    func run() async throws {
        try await execute()
    }

    func execute() async throws {
        let services = Services(configuration: try paths.configuration(root: root))
        do {
            try await ServeFrontEnd.run(
                services: services,
                listen: listen,
                updateEvery: try interval,
                // ArgumentParser hands `--json` after `serve` to the root command,
                // which declares it too; the subcommand's own flag documents it.
                json: json || root.json,
                web: !noWeb
            )
            await services.close()
        } catch let refusal as ServeFrontEnd.Refusal {
            await services.close()
            // A usage error (2), said without the shell's usage text.
            FileHandle.standardError.write(Data("feedsh serve: \(refusal)\n".utf8))
            throw ExitCode(2)
        } catch {
            await services.close()
            throw error
        }
    }
}

/// Where a front end over the library (`serve`, `mcp`) finds it: the shell's
/// library and download folder, from these flags, else the environment, else
/// the XDG defaults.
struct LibraryPaths: ParsableArguments {
    @Option(help: ArgumentHelp("The library file (env FEEDSH_LIBRARY).", valueName: "file"), completion: .file())
    var library: String?

    @Option(
        help: ArgumentHelp("Where episodes are saved (env FEEDSH_DOWNLOAD_DIR).", valueName: "dir"),
        completion: .directory
    )
    var downloadDir: String?

    /// The configuration, with the cache folder and proxies from the environment.
    ///
    /// `root` is the command line as the root command read it: ArgumentParser
    /// gives `--library` and `--download-dir` after `serve` or `mcp` to the root,
    /// which declares them too, so they are taken from there when these are not
    /// set (they were lost, and the XDG library served instead).
    func configuration(root: Feedsh) throws -> Configuration {
        do throws(ProxyError) {
            return try .frontEnd(library: library ?? root.library, downloadDir: downloadDir ?? root.downloadDir)
        } catch {
            throw ValidationError("\(error.description).")
        }
    }
}

/// `feedsh mcp`: flags only; the work is ``Assistant/MCPFrontEnd``.
struct MCPServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Your library for assistants: a Model Context Protocol server on standard input and output.",
        discussion: """
            Tools: search, subscriptions, episodes, episode, transcript, new, queue and stats, read-only. \
            With --allow-changes also queue_add, mark, download (it goes on in the background feedsh when \
            the server exits) and subscribe; without it they are not listed, and a call is refused. The \
            library and download folder are the shell's (FEEDSH_LIBRARY, FEEDSH_DOWNLOAD_DIR).
            """
    )

    @Flag(help: "List and run the tools that change the library: queue_add, mark, download, subscribe.")
    var allowChanges = false

    @OptionGroup var paths: LibraryPaths
    @ParentCommand var root: Feedsh

    func run() async throws {
        try await execute()
    }

    /// Serves until the client closes standard input, over the library and download
    /// folder these flags chose.
    func execute() async throws {
        let services = Services(configuration: try paths.configuration(root: root))
        do {
            try await MCPFrontEnd.run(services: services, allowChanges: allowChanges)
            await services.close()
        } catch {
            await services.close()
            FileHandle.standardError.write(Data("feedsh mcp: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct ServeFixtures: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-fixtures",
        abstract: "Serve the built-in fixtures over HTTP until interrupted.",
        discussion: """
            Prints the base URL, then serves. Point feedsh at it with FEEDSH_ITUNES_URL, FEEDSH_POSTS_URL \
            and FEEDSH_MET_URL (or --itunes-url, --posts-url, --met-url), and FEEDSH_PODCASTINDEX_URL at \
            BASE/api/1.0 (key FEEDSHDEMOKEY, secret feedsh-demo-secret): it answers all four APIs, a \
            gpodder.net sync API at BASE (any user, password fixture), and feeds, OPML and media under /feeds/, /opml/ and /media/ (docs/architecture.md lists every route and \
            the faults behind /fault/SPEC/).
            """
    )

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 0

    @Option(help: ArgumentHelp("Media bytes a second (0: unthrottled).", valueName: "bytes"))
    var rate = 1_000_000

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        guard rate >= 0 else { throw ValidationError("--rate must not be negative.") }
    }

    func run() async throws {
        try await execute()
    }

    func execute() async throws {
        let server = try await FixtureServer.start(.init(port: port, mediaRate: rate == 0 ? nil : rate))
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
        try await server.wait()
    }
}

extension DownloadEngine: ExpressibleByArgument {}

/// A size as curl's `--max-filesize` takes it: bytes, or k, M, G (1024-based).
struct FileSize: ExpressibleByArgument {
    let bytes: Int64

    init?(argument: String) {
        guard let bytes = ByteSize.atLeast1k(argument) else { return nil }
        self.bytes = bytes
    }

    static var defaultCompletionKind: ArgumentParser.CompletionKind { .list(["500M", "1G", "4G"]) }
}
