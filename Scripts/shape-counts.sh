#!/usr/bin/env bash
# The shape measures of issue "One episode, one path", read from the source:
# Scripts/shape-counts.sh [DIR] (default: this checkout). Counts, not verdicts.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
shell=Sources/FeedShell
# Command files: those that declare a command (`static let NAME = Command(` or
# `perDownload(`), outside Output/.
commands=$(grep -rlE 'static let [a-zA-Z]+ = (Command|perDownload)\(' "$shell" | grep -v /Output/ | sort)
count() { printf '%-58s %s\n' "$1" "$2"; }
# Stored properties of the Session actor: `let`/`var` declarations at its first
# level that are not computed ({ get ... } or a body).
stored=$(awk '/^public actor Session/ {inside=1; depth=0} inside {
        line=$0; opens=gsub(/\{/, "{", line); closes=gsub(/\}/, "}", line)
        if (depth == 1 && $0 ~ /^    (public |private |nonisolated |private\(set\) |public private\(set\) |public nonisolated )*(let|var) / && $0 !~ /\{ *$/ && $0 !~ /\{ [^}]*\}/) n++
        depth += opens - closes; if (depth == 0 && opens + closes > 0) inside=0 }
    END { print n + 0 }' $(grep -rl '^public actor Session' "$shell"))
count "Session stored properties" "$stored"
count "files with 'extension Session'" "$(grep -rl '^extension Session' Sources | wc -l)"
count "command files" "$(echo "$commands" | wc -l)"
# The engine, board or layout reached from a command, past the downloads
# service's own operations.
reach='session\.(downloads|board|layout)\b|downloads\.(engine|board|layout)\b'
count "command files reaching session.downloads/board/layout" "$(grep -lE "$reach" $commands | wc -l)"
count "  those reaches" "$(grep -ohE "$reach" $commands | wc -l)"
count "English literals in command files (quoted, with a space)" \
    "$(grep -ohE '"[^"\\]*[a-z]+ [a-z]+[^"]*"' $commands | grep -vE '^"(details|summary)' | wc -l)"
# The same, leaving out the commands' declared help (`summary:`, `details:` and
# its block, `noun:`), which help, the man page and completion derive from.
count "  those outside the declared help text" \
    "$(awk '/details: """/ {inside=1; next} inside && /"""/ {inside=0; next} !inside && !/(summary|details|noun):/' $commands \
        | grep -ohE '"[^"\\]*[a-z]+ [a-z]+[^"]*"' | wc -l)"
count "'.object([' in command files" "$(grep -o '\.object(\[' $commands | wc -l)"
count "'console.' in command files" "$(grep -o 'console\.' $commands | wc -l)"
count "'import HTTPSupport' in FeedShell" "$(grep -rl '^import HTTPSupport' "$shell" | wc -l)"
count "CLI advice in lower modules ('run '/'use '/'--flag' in quotes)" \
    "$(grep -rhoE "'(run|use|set|sync|subscribe|resume|get) [^']*'|run '[a-z]+|--[a-z-]+ " \
        Sources/Library Sources/FeedKit Sources/Downloads Sources/Sync | wc -l)"
count "DispatchQueue.global in Sources" "$(grep -r 'DispatchQueue.global' Sources | wc -l)"
# GRDB columns named by text (not TerminalKit's Table.Column). A migration names
# its columns as they were when it was written, as GRDB advises: it must not change
# with a record type, so one in a migration is expected.
count "Column(\" in Sources (GRDB)" "$(grep -r 'Column("' Sources | grep -v 'Table\.Column(' | wc -l)"
