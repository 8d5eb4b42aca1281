#!/usr/bin/env python3
"""Writes Linker/feedsh.order: the functions feedsh runs at start, at an idle
prompt and through a subscribe, update and download, in that order.

lld lays these out first in the release build (Package.swift, `lightStart`), so
the code a start touches sits together: the kernel maps code 64 KiB around each
page a process touches, and the same functions spread over the binary cost
several MiB more of it (docs/performance.md, "Start").

It runs a release build under valgrind's callgrind, which names every function
that ran. Run it after changes that move much of what a start does:

    make release && python3 Scripts/symbol-order.py

A stale list costs only memory: the linker places what it names and warns about
nothing. Needs valgrind (apt-get install valgrind) and python3.
"""

import argparse
import http.server
import importlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Scripts"))
shell_bench = importlib.import_module("bench-shell")

FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Order</title><link>http://{host}/</link>
<description>The feed Scripts/symbol-order.py downloads from.</description>
<item><title>One</title><guid>one</guid><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>
<enclosure url="http://{host}/one.mp3" length="{length}" type="audio/mpeg"/>
<description>Show notes.</description></item>
</channel></rss>
"""


def callgrind(binary, arguments, env, out, interactive=False):
    """Runs `binary` under callgrind; at a prompt (bench-shell's pseudo-terminal),
    completes, asks for help and ends with Ctrl-D. Every wait has a deadline."""
    command = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", binary, *arguments]
    if not interactive:
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       timeout=600)
        return
    terminal = shell_bench.Terminal(command, env)
    try:
        terminal.expect(rb"feedsh> ")
        terminal.send("hel\t\t")
        # The prompt after help's last line: ^U redraws the prompt at once, and a
        # ^D typed while help runs (the terminal cooked) reaches no one.
        terminal.command("\x15help", rb"Ctrl-D does the same\)\r\nfeedsh> ")
        terminal.send("\x04")
        # callgrind writes its profile as feedsh exits.
        terminal.process.wait(timeout=60)
    finally:
        terminal.close()


def functions(profile, known):
    """The functions of the binary that ran, in the order callgrind lists them.

    Callgrind names a function once, at its first mention, as a caller (`fn=`) or
    a callee (`cfn=`), and by its number after that."""
    names, ran = {}, []
    for line in profile.read_text(errors="replace").splitlines():
        match = re.match(r"^(c?fn)=\((\d+)\)(?: (.+))?$", line)
        if not match:
            continue
        kind, number, name = match.groups()
        if name:
            names[number] = name
        if kind == "fn":
            ran.append(number)
    return [names[number] for number in dict.fromkeys(ran) if names.get(number) in known]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--feedsh", default=str(ROOT / ".build/release/feedsh"))
    parser.add_argument("--out", default=str(ROOT / "Linker/feedsh.order"))
    args = parser.parse_args()

    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-symbol-order-"))
    try:
        # valgrind reads the symbol table, not the DWARF: a copy without it loads fast.
        binary = scratch / "feedsh"
        shutil.copy(args.feedsh, binary)
        subprocess.run(["strip", "-g", str(binary)], check=True)
        nm = subprocess.run(["nm", "--defined-only", str(binary)], capture_output=True, text=True, check=True)
        known = {parts[2] for parts in (line.split(" ", 2) for line in nm.stdout.splitlines())
                 if len(parts) == 3 and parts[1] in "tTwW"}

        served = scratch / "served"
        served.mkdir()
        (served / "one.mp3").write_bytes(os.urandom(8 << 20))
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *arguments, **options):
                super().__init__(*arguments, directory=str(served), **options)

            def log_message(self, *arguments):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        host = f"127.0.0.1:{server.server_address[1]}"
        (served / "feed.xml").write_text(FEED.format(host=host, length=8 << 20))
        threading.Thread(target=server.serve_forever, daemon=True).start()

        home = scratch / "home"
        home.mkdir()
        env = dict(os.environ, HOME=str(home), NO_COLOR="1", LANG="C.UTF-8", TERM="xterm-256color",
                   FEEDSH_DOWNLOAD_DIR=str(home / "downloads"))
        runs = [
            (["-c", "help"], False),
            (["--no-pager"], True),
            (["-c", f"subscribe http://{host}/feed.xml; update; podcast 1; episodes; get 1; wait"], False),
            # A start with a library there, at the prompt again.
            (["--no-pager"], True),
        ]
        order, seen = [], set()
        for index, (arguments, interactive) in enumerate(runs):
            profile = scratch / f"callgrind.{index}"
            callgrind(str(binary), arguments, env, profile, interactive)
            for name in functions(profile, known):
                if name not in seen:
                    seen.add(name)
                    order.append(name)
        server.shutdown()
        pathlib.Path(args.out).write_text("\n".join(order) + "\n")
        print(f"symbol-order: {len(order)} functions in {args.out}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
