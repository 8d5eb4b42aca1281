#!/usr/bin/env python3
"""`make bench`: a first full sync against opodsync, beside gPodder's own client.

opodsync (../shared/sync-server, PHP + SQLite) runs on 127.0.0.1 and nginx serves
the feeds. For each size, a library with that many subscriptions (40 episodes each),
every episode marked played, so that the outbox holds one `play` action an episode,
is copied fresh for each run, and each run has a fresh server. Timed:

- `feedsh -c sync`: the subscriptions, the actions 1,000 a request, and every
  action read back and merged in one transaction;
- mygpoclient (gPodder's client library, from .build-venv) uploading the same
  actions 1,000 a request and reading them back: the reference.

Medians of `--runs`; peak RSS says whether memory stays flat as the size grows.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
START = ROOT.parent / "shared" / "sync-server" / "start.sh"
PYTHON = ROOT / ".build-venv" / "bin" / "python"
EPISODES = 40


def feed_xml(number, base):
    items = "".join(
        f"<item><title>Feed {number} item {i}</title><guid>f{number}-i{i}</guid>"
        f'<enclosure url="{base}/media/{number}/{i}.mp3" type="audio/mpeg" length="1000"/>'
        f"<itunes:duration>{600 + i}</itunes:duration></item>"
        for i in range(EPISODES, 0, -1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
        'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>'
        f"<title>Bench feed {number}</title>{items}</channel></rss>\n"
    )


def start_opodsync(folder):
    port = bench.free_port()
    pid = subprocess.run(["bash", str(START), str(port), str(folder), "alice", "secret"], check=True,
                         capture_output=True, text=True).stdout.strip()
    return f"http://127.0.0.1:{port}", int(pid)


def main():
    args = bench.arguments(__doc__)
    if not PYTHON.exists():
        raise SystemExit("bench: no .build-venv with mygpoclient; 'make test-deps' makes it")
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-sync-"))
    scratch.chmod(0o755)  # nginx's workers run as another user when this runs as root
    www = scratch / "www"
    (www / "feeds").mkdir(parents=True)
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    nginx = bench.start_nginx(www, port, scratch)
    env = dict(os.environ, HOME=str(scratch), NO_COLOR="1", FEEDSH_DOWNLOAD_DIR=str(scratch / "downloads"),
               FEEDSH_SYNC_PASSWORD="secret")
    samples = {}

    def record(scenario, tool, wall, rss):
        samples.setdefault(scenario, {}).setdefault(tool, []).append((wall, rss))
        print(f"bench: {scenario:44} {tool:24} {wall:7.3f} s {rss / 1024:7.1f} MiB", file=sys.stderr)

    try:
        for feeds in (50, 500):
            for number in range(1, feeds + 1):
                (www / "feeds" / f"{number}.xml").write_text(feed_xml(number, base))
            opml = "".join(f'<outline type="rss" xmlUrl="{base}/feeds/{n}.xml"/>\n' for n in range(1, feeds + 1))
            (scratch / "feeds.opml").write_text(f'<opml version="2.0"><body>\n{opml}</body></opml>\n')
            prepared = scratch / f"prepared-{feeds}.sqlite"
            marks = "; ".join(f"mark played {n}:1-{EPISODES}" for n in range(1, feeds + 1))
            subprocess.run([args.feedsh, "--library", str(prepared), "-c",
                            f"import {scratch / 'feeds.opml'}; update; {marks}"],
                           env=env, check=True, capture_output=True)
            actions = [
                {"podcast": f"{base}/feeds/{n}.xml", "episode": f"{base}/media/{n}/{i}.mp3", "action": "play",
                 "timestamp": "2026-11-24T10:00:00", "started": 0, "position": 600 + i, "total": 600 + i}
                for n in range(1, feeds + 1) for i in range(1, EPISODES + 1)
            ]
            (scratch / "actions.json").write_text(json.dumps(actions))
            scenario = f"first sync: {feeds} subscriptions, {len(actions):,} actions"
            for run in range(args.runs):
                order = ["feedsh", "mygpoclient"] if run % 2 == 0 else ["mygpoclient", "feedsh"]
                for tool in order:
                    server, pid = start_opodsync(scratch / f"opodsync-{feeds}-{run}-{tool}")
                    try:
                        if tool == "feedsh":
                            library = scratch / f"run-{feeds}-{run}.sqlite"
                            shutil.copy(prepared, library)
                            subprocess.run([args.feedsh, "--library", str(library), "-c",
                                            f"sync login {server} alice --device bench"],
                                           env=env, check=True, capture_output=True)
                            wall, rss = bench.timed([args.feedsh, "--library", str(library), "-c", "sync"], env)
                            record(scenario, "feedsh sync", wall, rss)
                        else:
                            wall, rss = bench.timed([str(PYTHON), str(ROOT / "Scripts" / "mygpo.py"), "upload-file",
                                                     server, "alice", "secret", str(scratch / "actions.json")], env)
                            record(scenario, "mygpoclient", wall, rss)
                    finally:
                        os.kill(pid, 15)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    bench.summarize(
        samples,
        reference=lambda tools: "mygpoclient" if "mygpoclient" in tools else None,
        heading=f"Medians of {args.runs} runs; loopback opodsync (php -S) and nginx, {os.cpu_count()} cores.",
        ratio="× mygpoclient",
        out=pathlib.Path(args.out),
        stem="sync",
        digits=3,
    )


if __name__ == "__main__":
    main()
