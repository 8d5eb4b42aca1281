#!/usr/bin/env python3
"""Fails when a target imports a module that Package.swift does not declare as its
dependency (a target of this package or a product of another), when a module below
the front ends (the core, FeedServices, and what it stands on) imports a front
end's module, or when a front end imports another; and when docs/architecture.md
does not name a target of Package.swift in its module tree (`  Name/`). An undeclared import builds
only while some other target happens to build that module first, and hides an
arrow the wrong way.

Usage: check-imports.py [SWIFT]   (run by `make lint`)"""
import json
import pathlib
import re
import subprocess
import sys

# Modules of the toolchain and the system, which no Package.swift declares.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationXML", "FoundationNetworking", "Dispatch", "Glibc", "Musl",
    "Darwin", "Synchronization", "Testing", "XCTest", "_Concurrency", "os",
}
# What a module below the front ends must never import: a front end, or the
# command language of the shell.
FRONT_ENDS = {"FeedShell", "Assistant", "FeedServer", "ShellKit", "LineEditor", "TerminalKit"}
BELOW_FRONT_ENDS = {
    "FeedServices", "Playback", "Library", "FeedKit", "Downloads", "Sync", "HTTPSupport", "PlainText", "Processes",
    "WebBasics",
}
# The front ends themselves: the shell (and the background feedsh), serve, mcp.
PEERS = {"FeedShell", "FeedServer", "Assistant"}
IMPORT = re.compile(r"^\s*(?:@testable\s+|@_exported\s+|public\s+|package\s+|internal\s+)*import\s+(?:[a-z]+\s+)?(\w+)")


def main() -> int:
    swift = sys.argv[1] if len(sys.argv) > 1 else "swift"
    root = pathlib.Path(__file__).resolve().parent.parent
    package = json.loads(subprocess.run([swift, "package", "dump-package"], cwd=root, check=True,
                                        capture_output=True, text=True).stdout)
    problems = []
    architecture = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    for target in package["targets"]:
        # A target is named by its folder: its name, or the path it declares.
        folder_name = pathlib.PurePath(target.get("path") or target["name"]).name
        if target["type"] != "test" and not re.search(rf"^\s*{re.escape(folder_name)}/", architecture, re.M):
            problems.append(f"docs/architecture.md: the module tree does not name the target {target['name']}")
        if target["type"] == "system":
            continue
        name = target["name"]
        folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
        declared = {name}
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        for source in sorted((root / folder).rglob("*.swift")):
            for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
                match = IMPORT.match(line)
                if not match:
                    continue
                module = match.group(1)
                place = f"{source.relative_to(root)}:{number}"
                if module not in declared and module not in SYSTEM:
                    problems.append(f"{place}: {name} imports {module}, which Package.swift does not give it")
                if name in BELOW_FRONT_ENDS and module in FRONT_ENDS:
                    problems.append(f"{place}: {name} imports {module}, a front end's module")
                if name in PEERS and module in PEERS and module != name:
                    problems.append(f"{place}: the front end {name} imports {module}, another front end")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-imports: {len(problems)} problem(s)")
        return 1
    return 0


sys.exit(main())
