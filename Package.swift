// swift-tools-version:6.1
import PackageDescription

/// What a start costs (docs/performance.md, "Start"): lld packs the relative
/// relocations (DT_RELR, glibc 2.36 and later), so the loader reads 30 KiB of them
/// instead of 3.7 MiB; and the executable exports no symbols (the static Swift
/// runtime asks for -export-dynamic, for plug-ins feedsh does not load), which
/// spares the loader a 5 MiB symbol table to search for every library's symbols.
///
/// In the release build, lld also lays out first the functions that run at a
/// start, at an idle prompt and through a download (Linker/feedsh.order, made by
/// Scripts/symbol-order.py; the Makefile builds each function in its own section):
/// the kernel maps code 64 KiB around each page a process touches, and that code,
/// spread over the binary's 32 MiB, kept 11 MiB of it resident. A stale list only
/// moves functions, and names it no longer finds are not warned about.
let lightStart: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
        .when(platforms: [.linux])
    ),
    .unsafeFlags(
        [
            "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linker/feedsh.order",
            "-Xlinker", "--no-warn-symbol-ordering",
        ],
        .when(platforms: [.linux], configuration: .release)
    ),
]

let package = Package(
    name: "feedsh",
    platforms: [.macOS(.v15)],
    products: [
        // One program: `feedsh mcp` and the urlsession engine's helper are feedsh
        // too (docs/performance.md, "Installed size").
        .executable(name: "feedsh", targets: ["feedsh"]),
        .library(name: "FeedKit", targets: ["FeedKit"]),
        .library(name: "FixtureServer", targets: ["FixtureServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Already built for async-http-client; named here to recognise TLS errors.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Deque for the download queue (async-http-client builds it already).
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        // The pager, started in the terminal's foreground (TerminalKit.Pager).
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        // FileDescriptor and FilePath for the download files (swift-subprocess builds
        // it already, under this same URL).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The podcast library: SQLite in WAL mode, migrations, DatabasePool.
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // Lines of mpv's JSON IPC (hummingbird builds it already).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The fixture server's graceful shutdown (hummingbird builds it already).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // SHA-1 for the Podcast Index's Authorization header (swift-certificates,
        // under async-http-client, builds it already).
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // `feedsh mcp`: the Model Context Protocol's Swift SDK (its stdio server).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        .executableTarget(
            name: "feedsh",
            dependencies: [
                "WebBasics",
                "Assistant",
                "CFileIO",
                "Downloads",
                "FeedKit",
                "FeedServer",
                "FeedServices",
                "FeedShell",
                "FixtureServer",
                "HTTPSupport",
                "LineEditor",
                "PlainText",
                "Processes",
                "ShellKit",
                "TerminalKit",
                "URLSessionEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: lightStart
        ),
        .target(
            name: "Assistant",
            dependencies: [
                "WebBasics",
                "Downloads", "FeedKit", "FeedServices", "HTTPSupport", "Library", "PlainText",
                .product(name: "MCP", package: "swift-sdk"),
                // The Logger an MCP transport carries (LineTransport).
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "URLSessionEngine",
            dependencies: [
                // libcurl, for FoundationNetworking, loaded on its first call.
                "CurlOnDemand",
                "WebBasics",
                "Downloads", "HTTPSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                // The helper's frames, written whole to standard output.
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The core below every front end: the services any front end calls,
        // their configuration and their values (docs/architecture.md).
        .target(
            name: "FeedServices",
            dependencies: [
                "WebBasics",
                "Background", "Downloads", "FeedKit", "HTTPSupport", "Library", "PlainText", "Playback", "Processes",
                "Sync",
                // Clips run FFmpeg and read what it says.
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "FeedShell",
            dependencies: [
                "WebBasics",
                "Background", "FeedKit", "FeedServices", "Library", "Downloads", "HTTPSupport",
                "LineEditor", "MediaKeys", "Playback",
                "ShellKit",
                // `serve --update-every` runs beside the server and stops with it.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "PlainText", "Processes", "Sync", "TerminalKit",
                // FilePath for the sync login file's folder.
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // `feedsh serve`: feeds of the downloaded episodes and the files, over
        // Hummingbird, and the front end that runs it over the services.
        .target(
            name: "FeedServer",
            dependencies: [
                "WebBasics",
                "Downloads", "FeedKit", "FeedServices", "HTTPSupport", "Library", "PlainText",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The request and response parts the connection limit's handler sees.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // The thread pool media files are read on, a chunk at a time.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // The web page, carried in the binary.
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/app.js"), .embedInCode("Web/app.css"),
                .embedInCode("Web/manifest.webmanifest"), .embedInCode("Web/icon.svg"),
            ]
        ),
        .target(
            name: "Background",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ]
        ),
        .target(
            name: "Playback",
            dependencies: [
                // The player template's words are split by PlainText's Tokenizer.
                "PlainText",
                "Processes",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ]
        ),
        .target(name: "PlainText"),
        // `play` as an MPRIS player on the session bus (media keys, playerctl),
        // through libsystemd's sd-bus, loaded only when a bus is there (CSDBus).
        .target(name: "MediaKeys", dependencies: ["CFileIO", "CSDBus", "PlainText", "Playback"]),
        .target(name: "CSDBus"),
        // libcurl's functions for FoundationNetworking, loading libcurl on the first
        // call: feedsh's start does not load it (include/curl_on_demand.h).
        .target(name: "CurlOnDemand"),
        // Programs started in feedsh's own process group (the player) or
        // a session of their own (the background feedsh).
        .target(name: "Processes", dependencies: ["CFileIO"]),
        .target(
            name: "TerminalKit",
            dependencies: ["CFileIO", "PlainText", .product(name: "Subprocess", package: "swift-subprocess")]
        ),
        .target(name: "ShellKit", dependencies: ["PlainText"]),
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(name: "LineEditor", dependencies: ["CEditLine", "PlainText", "ShellKit", "TerminalKit"]),
        // An origin, a redacted address, a byte size: the web's values without
        // a network, for Library and the rest to use without AsyncHTTPClient.
        .target(name: "WebBasics"),
        .target(
            name: "HTTPSupport",
            dependencies: [
                "WebBasics",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "FeedKit",
            dependencies: [
                "WebBasics",
                "HTTPSupport",
                "PlainText",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // To recognise a gzip bomb: AsyncHTTPClient decompresses with it.
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Library",
            dependencies: [
                "FeedKit", "WebBasics", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own API, for the one check a start makes before it opens
                // the library (AwayEvents.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(name: "CFileIO"),
        // The gpodder.net v2 / Nextcloud gPodder Sync protocol and the pure merge.
        .target(
            name: "Sync",
            dependencies: [
                "WebBasics",
                "FeedKit", "HTTPSupport", "Library", "PlainText",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "Downloads",
            dependencies: [
                "WebBasics",
                "CFileIO",
                "HTTPSupport",
                // The transport helper's process (HelperTransport).
                "Processes",
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                // FileDescriptor and FilePath for the `.part`, the sidecar and `lstat`.
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        .target(
            name: "FixtureData",
            path: "Fixtures",
            exclude: ["README.md"],
            resources: [
                .embedInCode("itunes/lookup-1386867488.json"),
                .embedInCode("itunes/lookup-1000000001.json"),
                .embedInCode("itunes/lookup-1000000002.json"),
                .embedInCode("itunes/lookup-1000000003.json"),
                .embedInCode("itunes/lookup-1000000004.json"),
                .embedInCode("itunes/search-podcasts.json"),
                .embedInCode("posts/posts.json"),
                .embedInCode("posts/comments.json"),
                .embedInCode("itunes/search-music.json"),
                .embedInCode("met/objects.json"),
                .embedInCode("images/artwork.jpg"),
                .embedInCode("images/photo.png"),
                .embedInCode("images/tiles.gif"),
                .embedInCode("images/swatch.webp"),
                .embedInCode("feeds/quirks.rss"),
                .embedInCode("feeds/atom.xml"),
                .embedInCode("feeds/latin1.rss"),
                .embedInCode("feeds/cp1252.rss"),
                .embedInCode("feeds/bom.rss"),
                .embedInCode("feeds/hostile.rss"),
                .embedInCode("feeds/bomb.rss"),
                .embedInCode("opml/gpodder.opml"),
                .embedInCode("opml/antennapod.opml"),
                .embedInCode("opml/apple.opml"),
                .embedInCode("opml/control.opml"),
                .embedInCode("feeds/world.rss"),
                .embedInCode("feeds/world.atom"),
                .embedInCode("itunes/lookup-1000000005.json"),
                .embedInCode("podcastindex/search.json"),
            ]
        ),
        .target(
            name: "FixtureServer",
            dependencies: [
                "FixtureData",
                // Ranges, answered as `feedsh serve` answers them.
                "HTTPSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The Podcast Index's SHA-1 header, checked as the real API does.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // NIO's HTTP/1 parts, for responses framed by the connection's close.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "FeedKitTests",
            dependencies: [
                "WebBasics", "FeedKit", "FixtureServer", "FixtureData", "HTTPSupport",
            ]
        ),
        .testTarget(
            name: "FeedServerTests",
            dependencies: [
                "FeedServer", "FeedServices", "FeedKit", "Library", "SocketTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // Channels without sockets, for the connection limit.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "FeedShellTests",
            dependencies: [
                "Assistant", "Downloads", "FeedKit", "FeedServices", "FeedShell", "Library", "LineEditor",
                "PlainText",
                "Playback",
                "ShellKit", "Sync", "TerminalKit", "FixtureServer", "FixtureData",
                .product(name: "MCP", package: "swift-sdk"),
            ]
        ),
        .testTarget(name: "LineEditorTests", dependencies: ["LineEditor"]),
        .testTarget(name: "MediaKeysTests", dependencies: ["MediaKeys", "Playback"]),
        .testTarget(name: "TerminalKitTests", dependencies: ["PlainText", "TerminalKit"]),
        .testTarget(name: "ShellKitTests", dependencies: ["PlainText", "ShellKit"]),
        .testTarget(
            name: "DownloadsTests",
            dependencies: [
                "Downloads", "HTTPSupport", "Processes", "URLSessionEngine", "FixtureServer", "SocketTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HTTPSupportTests",
            dependencies: [
                "HTTPSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SyncTests",
            dependencies: ["Sync", "FeedKit", "Library", "HTTPSupport", "FixtureServer", "SocketTestSupport"]
        ),
        .testTarget(
            name: "LibraryTests",
            dependencies: [
                "Library", "FeedKit", "HTTPSupport", "PlainText", "FixtureServer",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Unix-socket helpers the control and end-to-end tests share.
        .target(
            name: "SocketTestSupport",
            dependencies: ["FixtureServer", .product(name: "Subprocess", package: "swift-subprocess")],
            path: "Tests/SocketTestSupport"
        ),
        .testTarget(name: "BackgroundTests", dependencies: ["Background", "SocketTestSupport"]),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "Processes", "TerminalKit", "FixtureServer"]),
        .testTarget(
            name: "FixtureServerTests",
            dependencies: [
                "FixtureServer", "FixtureData",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FixtureServer", "FixtureData", "SocketTestSupport",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
