// swift-tools-version:6.1
// The floor of the installed-size row of `make bench` (Scripts/bench-goals.py):
// the smallest program that imports Foundation, linked as feedsh is (static
// Swift runtime and Foundation), then stripped.
import PackageDescription

let package = Package(
    name: "floor",
    targets: [.executableTarget(name: "floor")]
)
