#!/usr/bin/env python3
"""`make bench`, first: the speed and memory goals, each as a ratio to its reference.

The rows, every tool of a row run in turn (the order rotating from run to run),
`--runs` times, in this one invocation; the table gives medians:

1. 1 GiB from nginx on loopback through feedsh's real path (`lookup; get 1; wait`:
   `.part`, sidecar, fdatasync, rename), against plain `curl -o` (not durable) and
   `dd if=/dev/zero bs=1M count=1024 conv=fdatasync` (the disk's own durable write).
   The reference is the slower of the two. Goal: ≤ 1.1×, ≤ 32 MiB.
2. `update` of 500 feeds (20 items each), 150 of them changed and the rest answering
   304, against `newsboat -x reload` on the same URLs, each in the state its users
   run it: newsboat stores a feed's ETag and Last-Modified on its second reload and
   sends them from its third, so it reloads twice before the measured run (feedsh
   stores them on its first). nginx logs each answer's status, and the table says how
   many of each tool's requests were answered 304 (the work it did). Goal: ≤ 0.10×,
   ≤ 64 MiB.
3. A first full sync of 500 subscriptions and 20,000 play actions against opodsync,
   against gPodder's mygpoclient uploading and reading back the same actions.
   Goal: ≤ 1.0×, ≤ 64 MiB.
4. Peak RSS of `feedsh -c help`, and of feedsh idle at its prompt in a
   pseudo-terminal (VmHWM once the prompt has shown for a second), on a first
   start and with a library already there, against `newsboat -v`. Goal: ≤ 24 MiB.
5. The first `subscribe` to one feed of 200,000 items (about 60 MB), one
   transaction, against newsboat's first `reload` of the same URL into an empty
   cache (how its users subscribe: the URL added, then a reload). Each run's
   library and cache are counted afterwards (the episodes each stored). Goal:
   ≤ 64 MiB.
6. `feedsh serve` of a library with 1,000 downloaded episodes (50 feeds of 20,
   and one 256 MiB file), under wrk on the same two cores, against nginx serving
   the same bytes (the all.xml feedsh served, the same file hard-linked) with
   Debian's defaults (a worker a core, access logged): 100 clients polling
   /feeds/all.xml with its ETag in If-None-Match (each answer a 304: a HEAD checks
   it first, and wrk counts any other status), then 10 clients downloading the
   file from byte 4096 on (206). Goal: ≥ 0.5× nginx's polls a second, ≤ 2× its
   p99 latency, ≥ 0.8× its download rate, ≤ 64 MiB (serve's VmHWM at the end).
7. What `make install` writes (feedsh, stripped, as it ships; the man page and
   completions), against the floor: the smallest program that imports
   Foundation, linked as feedsh is (static Swift runtime) and stripped
   (Scripts/bench-floor). The installed `feedsh mcp` answers an MCP initialize
   and the urlsession engine's helper (feedsh --urlsession-helper) starts, so
   the row shows they still work. Goal: ≤ 100 MB in all.
8. The largest libraries (`--only largest`; newsboat takes about 20 minutes to
   build its cache of them): 2,000 subscriptions of 500 episodes, 1,000,000 in
   all, on loopback nginx, the last update having brought 5 new episodes to each
   (10,000 new). `update` with every answer a 304, against `newsboat -x reload` of
   the same URLs after two reloads (validators stored; nginx's log counts the 304s
   of each). Goal: ≤ 0.10×. Then `podcasts`, `new`, `find lighthouse` (a word in one
   episode of a hundred) and `podcast 1000; episodes --limit 20`, each against
   `sqlite3` running the same query on the library file (the storage's floor, its
   SQL in the script), timed to the microsecond from here. Goal: ≤ 3×, ≤ 64 MiB.

Each run is preceded by `sync`, so no tool pays for another's writeback. Writes
bench-out/goals.md and goals.json; BENCH_KEEP=1 leaves the scratch folder. `--baseline OLD` runs an older feedsh beside this
one in every row, to give a change's before and after from one invocation. Run from
the repository root after a release build.
"""
import email.utils
import importlib
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import re
import socket
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (nginx, /usr/bin/time, a free port, shared)

library_bench = importlib.import_module("bench-library")
sync_bench = importlib.import_module("bench-sync")
shell_bench = importlib.import_module("bench-shell")

ROOT = pathlib.Path(__file__).resolve().parent.parent
MiB = 1 << 20
FEEDS = 500
SYNC_FEEDS = 500


class Row:
    """One goal: its tools' samples, which of them is the reference, and the bounds."""

    def __init__(self, name, ratio_goal, rss_goal, reference, measure="wall"):
        self.name = name
        self.ratio_goal = ratio_goal
        self.rss_goal = rss_goal
        self.reference = reference  # tools -> the reference's median, in the measure's unit
        self.measure = measure  # "wall" (seconds) or "rss" (MiB)
        self.samples = {}
        self.work = {}  # tool -> what the reference run showed it did (a line of text)

    def record(self, tool, wall, rss_kib):
        self.samples.setdefault(tool, []).append((wall, rss_kib / 1024))
        print(f"bench: {self.name:34} {tool:36} {wall:7.3f} s {rss_kib / 1024:7.1f} MiB", file=sys.stderr)

    def median(self, tool, index):
        return statistics.median(sample[index] for sample in self.samples[tool])


def rotated(names, run):
    """The tools in the order of run `run`: each goes first in turn."""
    return names[run % len(names):] + names[:run % len(names)]


def served_folder(scratch, name):
    """A folder of its own for a row, its www/feeds served by nginx on a free port:
    (folder, www, base URL, nginx's process)."""
    folder = scratch / name
    www = folder / "www"
    (www / "feeds").mkdir(parents=True)
    port = bench.free_port()
    return folder, www, f"http://127.0.0.1:{port}", bench.start_nginx(www, port, folder)


def binaries(args):
    """(name, path) of the feedsh under test and, with --baseline, the older one."""
    return [("feedsh", args.feedsh)] + ([("baseline feedsh", args.baseline)] if args.baseline else [])


def download_row(args, scratch, env, rows):
    www = ROOT / ".build-bench/www"
    bench.make_files(www)
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    bench.write_lookup(www, base)
    nginx = bench.start_nginx(www, port, scratch / "nginx-download")
    downloads = scratch / "downloads"
    env = dict(env, FEEDSH_ITUNES_URL=f"{base}/bench")
    row = Row("1 GiB durable download", 1.1, 32,
              lambda m: max(m("curl -o (not durable)"), m("dd conv=fdatasync (durable)")))
    tools = {
        f"{name} lookup; get 1; wait": [binary, "--download-dir", str(downloads), "-c", "lookup 1 --limit 20; get 1; wait"]
        for name, binary in binaries(args)
    }
    tools |= {
        "curl -o (not durable)": ["curl", "-sS", "-o", str(downloads / "big.bin"), f"{base}/big.bin"],
        "dd conv=fdatasync (durable)": ["dd", "if=/dev/zero", f"of={downloads / 'dd.bin'}", "bs=1M",
                                        "count=1024", "conv=fdatasync", "status=none"],
    }
    try:
        for run in range(args.runs):
            names = list(tools)
            for tool in rotated(names, run):
                shutil.rmtree(downloads, ignore_errors=True)
                downloads.mkdir(parents=True)
                os.sync()
                wall, rss = bench.timed(tools[tool], env)
                row.record(tool, wall, rss)
                if run == 0 and "feedsh" in tool:
                    got = downloads / "1" / "1001.bin"
                    if subprocess.run(["cmp", "-s", str(got), str(www / "big.bin")]).returncode != 0:
                        raise SystemExit("bench: feedsh wrote a file that differs from the source")
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(downloads, ignore_errors=True)
    rows.append(row)


def feeds_folder(scratch, name, feeds):
    """A row's folder of `feeds` feeds (/feeds/N.xml) served by nginx on a free port,
    each answer's status logged, and their URLs for newsboat (`urls`, with an empty
    `config`) and for feedsh (`feeds.opml`): (folder, www, base URL, log, nginx)."""
    folder = scratch / name
    www = folder / "www"
    (www / "feeds").mkdir(parents=True)
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    log = folder / "access.log"
    nginx = bench.start_nginx(www, port, folder, log=log)
    urls = [f"{base}/feeds/{n}.xml" for n in range(1, feeds + 1)]
    (folder / "urls").write_text("\n".join(urls) + "\n")
    (folder / "config").write_text("")
    opml = "".join(f'<outline type="rss" text="{n}" xmlUrl="{u}"/>\n' for n, u in enumerate(urls, 1))
    (folder / "feeds.opml").write_text(f'<opml version="2.0"><body>\n{opml}</body></opml>\n')
    return folder, www, base, log, nginx


def feed_statuses(log, start):
    """What nginx answered the feed requests logged from byte `start` on, in words."""
    with open(log, encoding="utf-8") as lines:
        lines.seek(start)
        statuses = [line.split(" ", 1)[0] for line in lines if "/feeds/" in line]
    return (f"{statuses.count('304')} of {len(statuses)} feed requests answered 304, "
            f"{statuses.count('200')} with 200")


def update_row(args, scratch, env, rows):
    folder, www, base, log, nginx = feeds_folder(scratch, "update", FEEDS)
    changed = {n for n in range(1, FEEDS + 1) if n % 10 in (1, 2, 3)}
    row = Row(f"update of {FEEDS} feeds, {len(changed)} changed", 0.10, 64, lambda m: m("newsboat -x reload"))
    try:
        for run in range(args.runs):
            cache = folder / f"newsboat-{run}.db"
            commands = {"newsboat -x reload": ["newsboat", "-x", "reload", "-u", str(folder / "urls"), "-c", str(cache),
                                               "-C", str(folder / "config")]}
            library_bench.write_feeds(www, base)
            for name, binary in binaries(args):
                library = folder / f"{name}-{run}.sqlite"
                subprocess.run([binary, "--library", str(library), "-c", f"import {folder / 'feeds.opml'}; update"],
                               env=env, check=True, capture_output=True)
                commands[f"{name} update"] = [binary, "--library", str(library), "-c", "update"]
            # Twice: the second reload stores the validators the third sends.
            for _ in range(2):
                subprocess.run(commands["newsboat -x reload"], env=env, check=True, capture_output=True)
            library_bench.write_feeds(www, base, changed=changed)
            names = list(commands)
            for tool in rotated(names, run):
                os.sync()
                start = log.stat().st_size if log.exists() else 0
                wall, rss = bench.timed(commands[tool], env)
                row.record(tool, wall, rss)
                row.work[tool] = feed_statuses(log, start)
                if run == 0:
                    print(f"bench: {tool}: {row.work[tool]}", file=sys.stderr)
    finally:
        nginx.terminate()
        nginx.wait()
    rows.append(row)


def sync_row(args, scratch, env, rows):
    python = ROOT / ".build-venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit("bench: no .build-venv with mygpoclient; 'make test-deps' makes it")
    folder, www, base, nginx = served_folder(scratch, "sync")
    env = dict(env, FEEDSH_SYNC_PASSWORD="secret")
    episodes = sync_bench.EPISODES
    row = Row(f"first sync: {SYNC_FEEDS} feeds, {SYNC_FEEDS * episodes:,} actions", 1.0, 64,
              lambda m: m("mygpoclient"))
    try:
        for number in range(1, SYNC_FEEDS + 1):
            (www / "feeds" / f"{number}.xml").write_text(sync_bench.feed_xml(number, base))
        opml = "".join(f'<outline type="rss" xmlUrl="{base}/feeds/{n}.xml"/>\n' for n in range(1, SYNC_FEEDS + 1))
        (folder / "feeds.opml").write_text(f'<opml version="2.0"><body>\n{opml}</body></opml>\n')
        prepared = folder / "prepared.sqlite"
        marks = "; ".join(f"mark played {n}:1-{episodes}" for n in range(1, SYNC_FEEDS + 1))
        subprocess.run([args.feedsh, "--library", str(prepared), "-c", f"import {folder / 'feeds.opml'}; update; {marks}"],
                       env=env, check=True, capture_output=True)
        actions = [
            {"podcast": f"{base}/feeds/{n}.xml", "episode": f"{base}/media/{n}/{i}.mp3", "action": "play",
             "timestamp": "2026-11-24T10:00:00", "started": 0, "position": 600 + i, "total": 600 + i}
            for n in range(1, SYNC_FEEDS + 1) for i in range(1, episodes + 1)
        ]
        (folder / "actions.json").write_text(sync_bench.json.dumps(actions))
        feedshes = {f"{name} sync": binary for name, binary in binaries(args)}
        for run in range(args.runs):
            names = list(feedshes) + ["mygpoclient"]
            for tool in rotated(names, run):
                server, pid = sync_bench.start_opodsync(folder / f"opodsync-{run}-{tool.replace(' ', '-')}")
                try:
                    if tool in feedshes:
                        library = folder / f"run-{run}.sqlite"
                        shutil.copy(prepared, library)
                        subprocess.run([feedshes[tool], "--library", str(library), "-c",
                                        f"sync login {server} alice --device bench"],
                                       env=env, check=True, capture_output=True)
                        os.sync()
                        wall, rss = bench.timed([feedshes[tool], "--library", str(library), "-c", "sync"], env)
                    else:
                        os.sync()
                        wall, rss = bench.timed([str(python), str(ROOT / "Scripts" / "mygpo.py"), "upload-file",
                                                 server, "alice", "secret", str(folder / "actions.json")], env)
                    row.record(tool, wall, rss)
                finally:
                    os.kill(pid, 15)
    finally:
        nginx.terminate()
        nginx.wait()
    rows.append(row)


def idle_prompt_rss(feedsh, env):
    """(seconds to the prompt, peak RSS in KiB) of feedsh at its prompt in a pty."""
    terminal = shell_bench.Terminal([feedsh, "--no-pager"], env)
    try:
        start = time.monotonic()
        terminal.expect(rb"feedsh> ", timeout=30)
        wall = time.monotonic() - start
        time.sleep(1)
        status = pathlib.Path(f"/proc/{terminal.process.pid}/status").read_text()
        peak = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
        return wall, peak
    finally:
        terminal.close()


def start_row(args, scratch, env, rows):
    env = dict(env, TERM="xterm-256color", LANG="C.UTF-8")
    # A later start, with a library there (one setting in it): what it reports at
    # start, it first asks without opening the library.
    later = dict(env, FEEDSH_LIBRARY=str(scratch / "start-library.sqlite"))
    for name, binary in binaries(args):
        subprocess.run([binary, "-c", "set speed 1.1"], env=later, check=True, stdout=subprocess.DEVNULL)
    row = Row("start: peak RSS", None, 24, lambda m: m("newsboat -v"), measure="rss")
    for run in range(args.runs):
        for name, binary in binaries(args):
            wall, rss = bench.timed([binary, "-c", "help"], env)
            row.record(f"{name} -c help", wall, rss)
            wall, rss = idle_prompt_rss(binary, env)
            row.record(f"{name} idle at its prompt", wall, rss)
            wall, rss = idle_prompt_rss(binary, later)
            row.record(f"{name} idle at its prompt, a library there", wall, rss)
        wall, rss = bench.timed(["newsboat", "-v"], env)
        row.record("newsboat -v", wall, rss)
    rows.append(row)


BIG_ITEMS = 200_000


def big_feed_row(args, scratch, env, rows):
    folder, www, base, nginx = served_folder(scratch, "big")
    feed = www / "feeds" / "big.xml"
    feed.write_text(library_bench.feed_xml(0, BIG_ITEMS, base, filler="short"))
    url = f"{base}/feeds/big.xml"
    (folder / "urls").write_text(url + "\n")
    (folder / "config").write_text("")
    row = Row(f"first subscribe, {BIG_ITEMS:,} items ({feed.stat().st_size / 1e6:.0f} MB)", None, 64,
              lambda m: m("newsboat -x reload"))
    try:
        for run in range(args.runs):
            commands = {}
            stores = {}
            for name, binary in binaries(args):
                library = folder / f"{name.replace(' ', '-')}-{run}.sqlite"
                commands[f"{name} subscribe"] = [binary, "--library", str(library), "-c", f"subscribe {url}"]
                stores[f"{name} subscribe"] = (library, "SELECT count(*) FROM episode")
            cache = folder / f"newsboat-{run}.db"
            commands["newsboat -x reload"] = ["newsboat", "-x", "reload", "-u", str(folder / "urls"), "-c", str(cache),
                                              "-C", str(folder / "config")]
            stores["newsboat -x reload"] = (cache, "SELECT count(*) FROM rss_item")
            names = list(commands)
            for tool in rotated(names, run):
                os.sync()
                wall, rss = bench.timed(commands[tool], env)
                row.record(tool, wall, rss)
                path, query = stores[tool]
                count = subprocess.run(["sqlite3", str(path), query], capture_output=True, text=True).stdout.strip()
                row.work[tool] = f"{count} items stored"
                if count != str(BIG_ITEMS):
                    raise SystemExit(f"bench: {tool} stored {count} items, not {BIG_ITEMS}")
                for stale in folder.glob(f"{path.name}*"):
                    stale.unlink()
    finally:
        nginx.terminate()
        nginx.wait()
    rows.append(row)


LARGEST_FEEDS = 2000
LARGEST_ITEMS = 500
LARGEST_NEW = 5  # the items a last update brings to each feed, new in the library
LARGEST_WORD = "lighthouse"  # in the show notes of one item in a hundred


def largest_feed(number, items, base):
    """A feed of the largest library: `items` items, newest first, their show notes
    varied so that a word is in some of them and not all."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>',
           f"<title>Library feed {number}</title><itunes:author>bench</itunes:author>"]
    for index in range(items, 0, -1):
        # An hour apart, the newest last written: `new` and `episodes` sort by it.
        date = email.utils.formatdate(1_700_000_000 + index * 3600 + number, usegmt=True)
        topic = LARGEST_WORD if index % 100 == number % 100 else f"harbour{index % 97}"
        out.append(f"<item><title>Feed {number} episode {index}</title><guid>l{number}-{index}</guid>"
                   f"<pubDate>{date}</pubDate>"
                   f'<enclosure url="{base}/media/{number}/{index}.mp3" type="audio/mpeg" length="1000"/>'
                   f"<itunes:duration>{600 + index}</itunes:duration>"
                   f"<description>Episode {index} of feed {number}: a talk about the {topic}, with notes on "
                   f"what was said and where to read more.</description></item>")
    out.append("</channel></rss>\n")
    return "\n".join(out)


def timed_exactly(command, env):
    """(seconds, peak RSS in KiB) of a command whose output goes to /dev/null: the
    wall time from this process, to the microsecond (/usr/bin/time -v gives
    hundredths, too coarse for a query of milliseconds), the RSS from /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + command, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"bench: {' '.join(command)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
        return wall, int(rss.read().split()[-1])


def largest_row(args, scratch, env, rows):
    """The largest libraries: 2,000 subscriptions, 1,000,000 episodes."""
    folder, www, base, log, nginx = feeds_folder(scratch, "largest", LARGEST_FEEDS)
    episodes = LARGEST_FEEDS * LARGEST_ITEMS

    def write_feeds(items):
        for number in range(1, LARGEST_FEEDS + 1):
            (www / "feeds" / f"{number}.xml").write_text(largest_feed(number, items, base))

    def check_libraries(when):
        """Each feedsh library holds every episode and the new ones, no more."""
        for name, library in libraries.items():
            counts = subprocess.run(["sqlite3", str(library), "SELECT count(*), sum(isNew) FROM episode"],
                                    capture_output=True, text=True).stdout.strip()
            if counts != f"{episodes}|{LARGEST_FEEDS * LARGEST_NEW}":
                raise SystemExit(f"bench: {name}'s library holds {counts} episodes (all|new) {when}")

    libraries = {}
    cache = folder / "newsboat.db"
    newsboat = ["newsboat", "-x", "reload", "-u", str(folder / "urls"), "-c", str(cache), "-C", str(folder / "config")]
    try:
        # The library as its user has it: subscribed, then a last update brought
        # five episodes to each feed (10,000 new), every validator stored.
        write_feeds(LARGEST_ITEMS - LARGEST_NEW)
        for name, binary in binaries(args):
            library = folder / f"{name.replace(' ', '-')}.sqlite"
            started = time.perf_counter()
            subprocess.run([binary, "--library", str(library), "-c", f"import {folder / 'feeds.opml'}; update"],
                           env=env, check=True, capture_output=True)
            libraries[name] = library
            print(f"bench: largest: {name} subscribed to {LARGEST_FEEDS} feeds in "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
        write_feeds(LARGEST_ITEMS)
        for name, binary in binaries(args):
            subprocess.run([binary, "--library", str(libraries[name]), "-c", "update"], env=env, check=True,
                           capture_output=True)
        # newsboat's steady state: the second reload stores the validators the
        # third sends.
        for _ in range(2):
            started = time.perf_counter()
            subprocess.run(newsboat, env=env, check=True, capture_output=True)
            print(f"bench: largest: newsboat reloaded in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        check_libraries("before the queries")
        stored = subprocess.run(["sqlite3", str(cache), "SELECT count(*) FROM rss_item"], capture_output=True,
                                text=True).stdout.strip()
        if stored != str(episodes):
            raise SystemExit(f"bench: newsboat's cache holds {stored} items, not {episodes}")

        update = Row(f"largest: update of {LARGEST_FEEDS} feeds, all 304", 0.10, None,
                     lambda m: m("newsboat -x reload"))
        commands = {"newsboat -x reload": newsboat}
        commands |= {f"{name} update": [binary, "--library", str(libraries[name]), "-c", "update"]
                     for name, binary in binaries(args)}
        podcast = LARGEST_FEEDS // 2
        queries = {
            "podcasts": ("podcasts", """SELECT podcast.*,
                (SELECT COUNT(*) FROM episode WHERE podcastID = podcast.id) AS episodeCount,
                (SELECT COUNT(*) FROM episode WHERE podcastID = podcast.id AND isNew) AS newCount,
                (SELECT COUNT(*) FROM episode WHERE podcastID = podcast.id AND downloaded) AS downloadedCount
                FROM podcast ORDER BY id;"""),
            "new": ("new", """SELECT p.title, e.title, e.published, e.seconds FROM episode e
                JOIN podcast p ON p.id = e.podcastID WHERE e.isNew = 1 ORDER BY e.published DESC, e.id DESC;"""),
            f"find {LARGEST_WORD}": (f"find {LARGEST_WORD}", f"""SELECT p.title, e.title FROM (
                SELECT id, score FROM (SELECT rowid AS id, bm25(episodeText, 4.0, 1.0) AS score FROM episodeText
                    WHERE episodeText MATCH '{LARGEST_WORD}' ORDER BY rowid DESC LIMIT 5000)
                ORDER BY score LIMIT 20) r
                JOIN episode e ON e.id = r.id JOIN podcast p ON p.id = e.podcastID;"""),
            "podcast P; episodes --limit 20": (f"podcast {podcast}; episodes --limit 20", f"""SELECT id, title,
                published, seconds, isNew, played, downloaded FROM episode WHERE podcastID = {podcast}
                ORDER BY published DESC, id DESC LIMIT 20;"""),
        }
        # Each query's row, and its tools' commands.
        query_rows = []
        for label, (command, sql) in queries.items():
            tools = {f"{name} {command}": [binary, "--library", str(libraries[name]), "-c", command]
                     for name, binary in binaries(args)}
            tools["sqlite3, the same query"] = ["sqlite3", str(libraries["feedsh"]), sql]
            query_rows.append((Row(f"largest: {label}", 3.0, 64, lambda m: m("sqlite3, the same query")), tools))
        for run in range(args.runs):
            for tool in rotated(list(commands), run):
                os.sync()
                start = log.stat().st_size
                wall, rss = bench.timed(commands[tool], env)
                update.record(tool, wall, rss)
                update.work[tool] = feed_statuses(log, start)
                if run == 0:
                    print(f"bench: {tool}: {update.work[tool]}", file=sys.stderr)
            for row, tools in query_rows:
                for tool in rotated(list(tools), run):
                    wall, rss = timed_exactly(tools[tool], env)
                    row.record(tool, wall, rss)
        check_libraries("after the queries")
    finally:
        nginx.terminate()
        nginx.wait()
    rows.append(update)
    rows.extend(row for row, _ in query_rows)


SERVE_FEEDS = 50
SERVE_ITEMS = 20
LARGE_MEDIA = 256 * MiB


def wrk(url, connections, headers, seconds):
    """wrk's reading of `connections` clients asking for `url` for `seconds`:
    requests a second, p99 latency (ms), bytes a second, requests, and those not
    answered 2xx or 3xx."""
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--latency"]
    for header in headers:
        command += ["-H", header]
    out = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    units = {"us": 1e-3, "ms": 1, "s": 1e3, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}

    def number(pattern):
        match = re.search(pattern, out)
        if not match:
            raise SystemExit(f"bench: no {pattern!r} in wrk's output:\n{out}")
        return float(match.group(1)) * (units[match.group(2)] if match.lastindex > 1 else 1)

    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": number(r"Requests/sec:\s+([\d.]+)"), "p99_ms": number(r"\n\s+99%\s+([\d.]+)(us|ms|s)"),
            "bytes_per_s": number(r"Transfer/sec:\s+([\d.]+)(B|KB|MB|GB)"),
            "requests": int(number(r"(\d+) requests in")), "bad": int(bad.group(1)) if bad else 0}


def wait_for_port(port, process, what):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"bench: {what} ended before it listened ({process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"bench: {what} did not listen on {port} in 30 s")


def head(url, headers=()):
    """(status, headers) of a HEAD of `url`."""
    request = urllib.request.Request(url, method="HEAD", headers=dict(h.split(": ", 1) for h in headers))
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def serve_row(args, scratch, env, serves):
    """`feedsh serve` under wrk against nginx serving the same bytes; appends to
    `serves` a dict of each tool's medians."""
    folder, www, base, source = served_folder(scratch, "serve")
    items = SERVE_FEEDS * SERVE_ITEMS
    body = b"\0" * (16 << 10)
    for number in range(1, SERVE_FEEDS + 1):
        (www / "feeds" / f"{number}.xml").write_text(library_bench.feed_xml(number, SERVE_ITEMS, base))
        (www / "media" / str(number)).mkdir(parents=True)
        for index in range(1, SERVE_ITEMS + 1):
            (www / "media" / str(number) / f"{index}.mp3").write_bytes(body)
    large = SERVE_FEEDS + 1
    (www / "feeds" / f"{large}.xml").write_text(
        library_bench.feed_xml(large, 1, base).replace('length="1000"', f'length="{LARGE_MEDIA}"'))
    (www / "media" / str(large)).mkdir()
    with open(www / "media" / str(large) / "1.mp3", "wb") as out:
        for _ in range(LARGE_MEDIA // (8 * MiB)):
            out.write(os.urandom(8 * MiB))
    opml = "".join(f'<outline type="rss" xmlUrl="{base}/feeds/{n}.xml"/>\n' for n in range(1, large + 1))
    (folder / "feeds.opml").write_text(f'<opml version="2.0"><body>\n{opml}</body></opml>\n')
    downloads = folder / "downloads"
    gets = "; ".join(f"get {n}:1-{SERVE_ITEMS}" for n in range(1, SERVE_FEEDS + 1))
    tools = {f"{name} serve": binary for name, binary in binaries(args)}
    libraries = {}
    for tool, binary in tools.items():
        library = folder / f"{tool.replace(' ', '-')}.sqlite"
        subprocess.run([binary, "--library", str(library), "--download-dir", str(downloads), "-c",
                        f"import {folder / 'feeds.opml'}; update; {gets}; get {large}:1; wait"],
                       env=env, check=True, capture_output=True)
        libraries[tool] = library
    source.terminate()
    source.wait()
    files = [path for path in downloads.rglob("*") if path.is_file() and path.suffix == ".mp3"]
    big = max(files, key=lambda path: path.stat().st_size)
    if len(files) != items + 1 or big.stat().st_size != LARGE_MEDIA:
        raise SystemExit(f"bench: the library has {len(files)} files downloaded, not {items + 1}")
    media = "/media/" + "/".join(urllib.parse.quote(part) for part in big.relative_to(downloads).parts)
    # nginx serves the same bytes: the feed as feedsh served it, the same file.
    mirror = folder / "mirror"
    (mirror / "feeds").mkdir(parents=True)
    (mirror / "media" / big.parent.relative_to(downloads)).mkdir(parents=True)
    os.link(big, mirror / "media" / big.relative_to(downloads))
    (folder / "nginx-mirror").mkdir()
    samples = {}
    seconds = args.serve_seconds
    try:
        for run in range(args.runs):
            for tool in rotated(list(tools) + ["nginx"], run):
                port = bench.free_port()
                url = f"http://127.0.0.1:{port}"
                if tool == "nginx":
                    # Debian's defaults: a worker a core, access logged.
                    process = bench.start_nginx(mirror, port, folder / "nginx-mirror", log=folder / "nginx.log",
                                                workers="auto", connections=1024)
                else:
                    process = subprocess.Popen(
                        [tools[tool], "serve", "--listen", f"127.0.0.1:{port}"],
                        env=dict(env, FEEDSH_LIBRARY=str(libraries[tool]), FEEDSH_DOWNLOAD_DIR=str(downloads)),
                        stdout=subprocess.DEVNULL, stderr=open(folder / "serve.log", "ab"))
                try:
                    wait_for_port(port, process, tool)
                    if tool != "nginx":
                        with urllib.request.urlopen(f"{url}/feeds/all.xml", timeout=60) as answer:
                            feed = answer.read()
                        if feed.count(b"<item>") != items + 1:
                            raise SystemExit(f"bench: {tool}'s all.xml has {feed.count(b'<item>')} items")
                        # The first run has feedsh first (nginx last): nginx
                        # serves the bytes feedsh served from then on.
                        if not (mirror / "feeds" / "all.xml").exists():
                            (mirror / "feeds" / "all.xml").write_bytes(feed)
                    status, headers = head(f"{url}/feeds/all.xml")
                    tag = headers["ETag"]
                    status, _ = head(f"{url}/feeds/all.xml", [f"If-None-Match: {tag}"])
                    if status != 304:
                        raise SystemExit(f"bench: {tool} answered a matching If-None-Match with {status}")
                    polls = wrk(f"{url}/feeds/all.xml", 100, [f"If-None-Match: {tag}"], seconds)
                    ranged = wrk(url + media, 10, ["Range: bytes=4096-"], seconds)
                    if polls["bad"] or ranged["bad"]:
                        raise SystemExit(f"bench: {tool} failed requests: {polls['bad']} polls, {ranged['bad']} ranges")
                    peak = None
                    if tool != "nginx":
                        status = pathlib.Path(f"/proc/{process.pid}/status").read_text()
                        peak = next(int(line.split()[1]) for line in status.splitlines()
                                    if line.startswith("VmHWM:")) / 1024
                    sample = {"rps": polls["rps"], "p99_ms": polls["p99_ms"],
                              "bytes_per_poll": polls["bytes_per_s"] / polls["rps"],
                              "range_mb_s": ranged["bytes_per_s"] / 1e6, "rss_mib": peak}
                    samples.setdefault(tool, []).append(sample)
                    print(f"bench: serve {tool:22} {polls['rps']:9.0f} polls/s p99 {polls['p99_ms']:7.2f} ms "
                          f"({polls['requests']} polls, about {sample['bytes_per_poll']:.0f} B each), "
                          f"ranges {sample['range_mb_s']:7.0f} MB/s, peak RSS {peak or 0:.1f} MiB", file=sys.stderr)
                finally:
                    process.terminate()
                    process.wait(timeout=30)
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(downloads, ignore_errors=True)
        shutil.rmtree(mirror, ignore_errors=True)
    medians = {tool: {key: statistics.median(s[key] for s in runs) if runs[0][key] is not None else None
                      for key in runs[0]} for tool, runs in samples.items()}
    serves.append({"items": items, "media": LARGE_MEDIA, "tools": medians, "samples": samples})


def size_row(args, scratch, env, sizes):
    """Bytes `make install` writes beside the floor's; appends to `sizes`."""
    shipped = pathlib.Path(args.feedsh).resolve().parent
    prefix = scratch / "installed"
    subprocess.run(["make", "--no-print-directory", "-o", "release", "-o", "strip", "install",
                    f"PREFIX={prefix}"], cwd=ROOT, check=True, capture_output=True)
    installed = sum(path.stat().st_size for path in prefix.rglob("*") if path.is_file())
    # What were helper programs still runs: `feedsh mcp` answers an MCP initialize,
    # and the urlsession helper, given no request, ends with its own error (2, not a
    # signal).
    hello = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
             '"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n')
    mcp = subprocess.run([str(prefix / "bin" / "feedsh"), "--library", str(scratch / "size.sqlite"), "mcp"],
                         input=hello.encode(), env=env, capture_output=True, timeout=60)
    if b'"serverInfo"' not in mcp.stdout:
        raise SystemExit(f"bench: the installed feedsh mcp did not answer: {mcp.stderr[:300]!r}")
    helper = subprocess.run([str(prefix / "bin" / "feedsh"), "--urlsession-helper"], stdin=subprocess.DEVNULL,
                            env=env, capture_output=True, timeout=60)
    if helper.returncode != 2 or b"not a request of feedsh's" not in helper.stderr:
        raise SystemExit(f"bench: the installed urlsession helper did not start: {helper.returncode} "
                         f"{helper.stderr[:300]!r}")
    floor_build = ROOT / ".build-bench" / "floor"
    subprocess.run(["swift", "build", "--package-path", str(ROOT / "Scripts" / "bench-floor"), "-c", "release",
                    "--static-swift-stdlib", "--scratch-path", str(floor_build)], check=True, capture_output=True)
    floor = scratch / "floor"
    subprocess.run(["strip", "-o", str(floor), str(floor_build / "release" / "floor")], check=True)
    programs = {path.name: path.stat().st_size for path in sorted((prefix / "bin").iterdir())}
    print(f"bench: installed {installed / 1e6:.1f} MB ({', '.join(f'{k} {v / 1e6:.1f}' for k, v in programs.items())}),"
          f" floor {floor.stat().st_size / 1e6:.1f} MB; from {shipped}", file=sys.stderr)
    sizes.append({"installed": installed, "programs": programs, "floor": floor.stat().st_size})


def report(rows, runs, out, sizes=(), serves=()):
    lines = [
        f"Medians of {runs} runs, alternating, on {os.cpu_count()} cores. The ratio is feedsh's wall time "
        "(peak RSS for the start row) over the reference's.",
        "",
        "| what | tool | wall (s) | peak RSS (MiB) | ratio | goal | met |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    result = {}
    for row in rows:
        index = 0 if row.measure == "wall" else 1
        reference = row.reference(lambda tool: row.median(tool, index))
        for tool in row.samples:
            wall, rss = row.median(tool, 0), row.median(tool, 1)
            mine = "feedsh" in tool
            ratio = (wall if index == 0 else rss) / reference
            goal = ", ".join(filter(None, [f"≤ {row.ratio_goal:.2f}×" if row.ratio_goal else None,
                                           f"≤ {row.rss_goal} MiB" if row.rss_goal else None])) if mine else ""
            met = ""
            if mine:
                met = "yes" if ((row.ratio_goal is None or ratio <= row.ratio_goal)
                                and (row.rss_goal is None or rss <= row.rss_goal)) else "no"
            lines.append(f"| {row.name} | {tool} | {wall:.3f} | {rss:.1f} | {ratio:.2f} | {goal} | {met} |")
            result.setdefault(row.name, {})[tool] = {
                "wall": wall, "rss_mib": rss, "ratio": ratio, "met": met or None, "runs": row.samples[tool]}
    for size in sizes:
        mb = size["installed"] / 1e6
        met = "yes" if mb <= 100 else "no"
        lines += ["", "| installed by `make install` | MB | × the floor | goal | met |", "|---|---:|---:|---|---|",
                  f"| {', '.join(size['programs'])} (stripped), man page, completions | {mb:.1f} | "
                  f"{size['installed'] / size['floor']:.2f} | ≤ 100 MB | {met} |",
                  f"| the floor: a static Foundation program, stripped | {size['floor'] / 1e6:.1f} | 1.00 | | |"]
        result["installed"] = size
    for serve in serves:
        nginx = serve["tools"]["nginx"]
        lines += ["", f"`serve` of a library with {serve['items']:,} downloaded episodes against nginx serving the "
                  "same bytes (the feed as feedsh served it, the same media file), wrk on the same two cores:", "",
                  "| tool | polls/s (100 clients, If-None-Match) | p99 (ms) | ranged downloads (10 clients, MB/s) "
                  "| peak RSS (MiB) | ratios to nginx | goal | met |", "|---|---:|---:|---:|---:|---|---|---|"]
        for tool, m in serve["tools"].items():
            ratios = goal = met = ""
            if tool != "nginx":
                polls, p99, ranges = m["rps"] / nginx["rps"], m["p99_ms"] / nginx["p99_ms"], \
                    m["range_mb_s"] / nginx["range_mb_s"]
                ratios = f"{polls:.2f}× polls, {p99:.2f}× p99, {ranges:.2f}× ranges"
                goal = "≥ 0.5× polls, ≤ 2× p99, ≥ 0.8× ranges, ≤ 64 MiB"
                met = "yes" if polls >= 0.5 and p99 <= 2 and ranges >= 0.8 and m["rss_mib"] <= 64 else "no"
            rss = f"{m['rss_mib']:.1f}" if m["rss_mib"] is not None else ""
            lines.append(f"| {tool} | {m['rps']:.0f} | {m['p99_ms']:.2f} | {m['range_mb_s']:.0f} | {rss} | {ratios} "
                         f"| {goal} | {met} |")
        work = ", ".join(f"{tool} about {m['bytes_per_poll']:.0f} B" for tool, m in serve["tools"].items())
        lines += ["", f"Each poll was answered 304 (a HEAD with the tag checked it; wrk counted no other status): "
                  f"bytes a poll, {work}."]
        result["serve"] = serve
    notes = [f"- {row.name}, {tool}: {work}" for row in rows for tool, work in row.work.items()]
    if notes:
        lines += ["", "What each tool's last run did (requests from nginx's log; items from its own store):", ""] + notes
    table = "\n".join(lines)
    print(table)
    out.mkdir(parents=True, exist_ok=True)
    (out / "goals.md").write_text(table + "\n")
    (out / "goals.json").write_text(bench.json.dumps(result, indent=1))


def main():
    def options(parser):
        parser.add_argument("--only", action="append",
                            choices=["download", "update", "sync", "start", "big", "largest", "serve", "size"],
                            help="run only these rows (repeatable)")
        parser.add_argument("--baseline", help="another feedsh binary (an older build) to run beside this one")
        parser.add_argument("--serve-seconds", type=int, default=10, help="how long wrk runs each load of serve")

    args = bench.arguments(__doc__, options)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-goals-"))
    scratch.chmod(0o755)  # nginx's workers run as another user when this runs as root
    (scratch / "nginx-download").mkdir()
    env = dict(os.environ, HOME=str(scratch), NO_COLOR="1", FEEDSH_DOWNLOAD_DIR=str(scratch / "downloads"))
    rows = []
    sizes = []
    serves = []
    steps = {"download": download_row, "update": update_row, "sync": sync_row, "start": start_row, "big": big_feed_row,
             "largest": largest_row}
    try:
        for name, step in steps.items():
            if not args.only or name in args.only:
                step(args, scratch, env, rows)
        if not args.only or "serve" in args.only:
            serve_row(args, scratch, env, serves)
        if not args.only or "size" in args.only:
            size_row(args, scratch, env, sizes)
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(scratch, ignore_errors=True)
    report(rows, args.runs, pathlib.Path(args.out), sizes, serves)


if __name__ == "__main__":
    main()
