import Downloads
import FixtureServer
import Foundation
import Testing

/// What a broken or hostile server does to a download: two versions never spliced,
/// no short, empty or endless body under a final name. On both transports.
@Suite("Downloads from a broken server")
struct BrokenServerTests {
    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The bytes on disk are version 0 (with its ETag); the resume is answered with
    /// a 206 of version 1 that proves nothing by its headers: no validators, the
    /// If-Range value echoed back, or another host after a redirect. The overlap
    /// differs, so the download starts over and the file is version 1 whole. (With
    /// 30 kB on disk, less than the overlap, the file is fetched again whole.)
    @Test(
        arguments: Engine.allCases,
        [
            "etag=1,novalidators,ifrange-ignored", "etag=1,echo-ifrange,ifrange-ignored",
            "elsewhere,etag=1,novalidators,ifrange-ignored",
        ]
    )
    func a206ThatProvesNothingIsNotSpliced(engine: Engine, fault: String) async throws {
        for onDisk in [30_720, 100_000] {
            try await EngineHarness.run(engine) { h in
                let name = "splice\(onDisk)"
                let oldETag = try await fetchHead(h.request(name, size: 200_000).url)
                let request = h.request(name, size: 200_000, fault: fault)
                let old = h.expectedBytes(name, size: 200_000, version: 0).prefix(onDisk)
                try h.leavePartial(request, bytes: Data(old), etag: oldETag, expected: 200_000)
                #expect(await h.download(request) == .completed(bytes: 200_000))
                #expect(fileData(request.file.final) == h.expectedBytes(name, size: 200_000, version: 1))
                let restarts = DownloadTrustTests.restarts(h.events.all)
                #expect(restarts == (onDisk > 65_536 ? [.overlapMismatch] : []))
            }
        }
    }

    /// The same version without validators, from another host after a redirect:
    /// the overlap matches and the resume goes on.
    @Test(arguments: Engine.allCases)
    func anHonestResumeElsewhereContinues(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let etag = try await fetchHead(h.request("honest", size: 300_000).url)
            let request = h.request("honest", size: 300_000, fault: "elsewhere,novalidators")
            let bytes = h.expectedBytes("honest", size: 300_000)
            try h.leavePartial(request, bytes: bytes.prefix(150_000), etag: etag, expected: 300_000)
            #expect(await h.download(request) == .completed(bytes: 300_000))
            #expect(fileData(request.file.final) == bytes)
            #expect(DownloadTrustTests.restarts(h.events.all).isEmpty)
        }
    }

    /// No Content-Length and the connection closes after 40 000 of 100 000 bytes:
    /// the end is asked for, the server has more, and the file is completed exactly.
    @Test(arguments: Engine.allCases)
    func aCloseDelimitedBodyCutShortIsContinued(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("cut", size: 100_000, fault: "nolength,drop=40000,times=1", declared: 100_000)
            #expect(await h.download(request) == .completed(bytes: 100_000))
            #expect(fileData(request.file.final) == h.expectedBytes("cut", size: 100_000))
            // URLSession fetches in Range windows: its body had a length.
            if engine == .ahc { #expect(h.server.requests.map(\.range).contains("bytes=40000-")) }
        }
    }

    /// A whole body without a length: the question at its end is answered 416.
    @Test(arguments: Engine.allCases)
    func aCloseDelimitedWholeBodyIsVerifiedByA416(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("whole", size: 100_000, fault: "nolength", declared: 100_000)
            #expect(await h.download(request) == .completed(bytes: 100_000))
            #expect(fileData(request.file.final) == h.expectedBytes("whole", size: 100_000))
            if engine == .ahc { #expect(h.server.requests.last?.range == "bytes=100000-") }
        }
    }

    /// A server without ranges that cut the body short: judged by the feed's
    /// length, a failure that keeps the `.part`; no final file.
    @Test(arguments: Engine.allCases)
    func aCutBodyFromAServerWithoutRangesFails(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("noranges", size: 100_000, fault: "nolength,drop=40000,norange", declared: 100_000)
            let error = await h.failure(request)
            #expect(error?.code == .truncated)
            #expect(error?.description.contains("40000 of the 100000 bytes") == true)
            #expect(!Self.exists(request.file.final))
            #expect(fileData(request.file.part)?.count == 40_000)
        }
    }

    /// A 200 with no bytes, with a length of 0 or a close right after the headers.
    @Test(arguments: Engine.allCases, ["empty", "empty,nolength", "empty,nolength,norange"])
    func anEmptyBodyIsNeverADownload(engine: Engine, fault: String) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("empty", size: 100_000, fault: fault)
            #expect(await h.failure(request)?.code == .emptyBody)
            #expect(!Self.exists(request.file.final))
            #expect(!Self.exists(request.file.part))
        }
    }

    /// Zeros without end: stopped at four times the declared length, the `.part`
    /// removed.
    @Test(arguments: Engine.allCases)
    func anEndlessBodyStopsAtFourTimesTheDeclaredLength(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("endless", size: 100_000, fault: "endless,norange", declared: 100_000)
            let error = await h.failure(request)
            #expect(error?.code == .tooLarge)
            #expect(error?.description.contains("larger than 400000 bytes") == true)
            #expect(!Self.exists(request.file.final))
            #expect(!Self.exists(request.file.part))
            #expect(!Self.exists(request.file.sidecar))
        }
    }

    /// Without a declared length, the configured maximum stops it.
    @Test(arguments: Engine.allCases)
    func anEndlessBodyStopsAtTheMaximum(engine: Engine) async throws {
        try await EngineHarness.run(engine, maxFileSize: 1 << 20) { h in
            let request = h.request("endless2", size: 100_000, fault: "endless,norange")
            let error = await h.failure(request)
            #expect(error?.code == .tooLarge)
            #expect(error?.description.contains("larger than 1 MiB") == true)
            #expect(!Self.exists(request.file.part))
        }
    }

    /// A Content-Length past the limit fails before a byte is written.
    @Test(arguments: Engine.allCases)
    func anAnnouncedLengthPastTheLimitFailsAtOnce(engine: Engine) async throws {
        try await EngineHarness.run(engine, maxFileSize: 1 << 20) { h in
            let request = h.request("big", size: 3_000_000)
            #expect(await h.failure(request)?.code == .tooLarge)
            #expect(!Self.exists(request.file.part))
            #expect(!Self.exists(request.file.final))
        }
    }

    /// A placeholder length (`length="1"`, common in feeds) caps nothing.
    @Test func aPlaceholderDeclaredLengthIsIgnored() async throws {
        try await EngineHarness.run(.ahc) { h in
            let request = h.request("placeholder", size: 300_000, declared: 1)
            #expect(await h.download(request) == .completed(bytes: 300_000))
        }
    }
}

/// Places and addresses a download must never use.
@Suite("Downloads that refuse")
struct RefusedDownloadTests {
    /// A podcast folder that is a link to elsewhere is not written through.
    @Test func aSymlinkedPodcastFolderIsRefused() async throws {
        try await EngineHarness.run(.ahc) { h in
            let request = h.request("linked", size: 10_000)
            let folder = request.file.final.deletingLastPathComponent()
            let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-elsewhere-\(UUID())")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: elsewhere) }
            try FileManager.default.createDirectory(
                at: folder.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: elsewhere)
            #expect(await h.failure(request)?.code == .unsafePath)
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
            #expect(h.server.requests.isEmpty)
        }
    }

    /// `file:` and `javascript:` fail at once, without a request or a retry.
    @Test(arguments: ["file:///etc/passwd", "javascript:alert(1)"])
    func anUnsupportedSchemeFailsAtOnce(url: String) async throws {
        try await EngineHarness.run(.ahc) { h in
            var request = h.request("scheme", size: 10_000)
            request = DownloadRequest(id: "scheme", url: URL(string: url)!, file: request.file)
            let error = await h.failure(request)
            #expect(error?.description.contains("unsupported URL scheme") == true)
            #expect(h.events.all.allSatisfy { if case .retrying = $0 { false } else { true } })
        }
    }

    /// A redirect to `file:` names the host that sent it, on both transports.
    @Test(arguments: Engine.allCases)
    func aRedirectToAFileIsRefused(engine: Engine) async throws {
        try await EngineHarness.run(engine) { h in
            let request = h.request("tofile", size: 10_000, fault: "redirect-file")
            let error = await h.failure(request)
            #expect(
                error?.description.contains("redirected to an unsupported URL scheme (file:) by 127.0.0.1") == true,
                "\(String(describing: error))"
            )
            #expect(!BrokenServerTests.exists(request.file.final))
        }
    }
}
