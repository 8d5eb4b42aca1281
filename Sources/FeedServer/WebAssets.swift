import Foundation
import Hummingbird
import NIOCore

/// The page, its script and style, its manifest and icon: files of
/// `Sources/FeedServer/Web/`, carried in the binary (`make install` copies
/// nothing more), each answered with its type and an ETag.
struct WebAsset: Sendable {
    let path: String
    let type: String
    let bytes: [UInt8]
    /// Made once: the bytes as a buffer (copy-on-write, so each answer shares
    /// them) and their ETag.
    private let buffer: ByteBuffer
    private let tag: String

    init(path: String, type: String, bytes: [UInt8]) {
        self.path = path
        self.type = type
        self.bytes = bytes
        buffer = ByteBuffer(bytes: bytes)
        tag = "\"" + String(FeedServer.fnv1a(String(decoding: bytes, as: UTF8.self)), radix: 16) + "\""
    }

    var response: Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-cache", .eTag: tag, .contentLength: String(buffer.readableBytes),
            ],
            body: .init(byteBuffer: buffer)
        )
    }
}

enum WebAssets {
    static let page = WebAsset(path: "/", type: "text/html; charset=utf-8", bytes: PackageResources.index_html)
    static let all = [
        WebAsset(path: "/app.js", type: "text/javascript; charset=utf-8", bytes: PackageResources.app_js),
        WebAsset(path: "/app.css", type: "text/css; charset=utf-8", bytes: PackageResources.app_css),
        WebAsset(
            path: "/manifest.webmanifest",
            type: "application/manifest+json",
            bytes: PackageResources.manifest_webmanifest
        ),
        WebAsset(path: "/icon.svg", type: "image/svg+xml", bytes: PackageResources.icon_svg),
    ]
}
