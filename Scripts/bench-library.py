#!/usr/bin/env python3
"""`make bench`: the library against newsboat, in one run.

nginx on 127.0.0.1 serves static feeds (it answers If-None-Match and
If-Modified-Since with 304 by itself). Three scenarios, medians of `--runs`:

1. `update` of 500 subscriptions, 30 % of the feeds changed since the last update
   and the rest answering 304, against `newsboat -x reload` with its default
   settings on the same URLs; both start each run from an update of the unchanged
   feeds (not timed).
2. `subscribe` to one feed of 5,000 items (about 10 MB).
3. `feedsh -c podcasts` with 500 subscriptions and 100,000 episodes in the library.

Run from the repository root after building feedsh in release mode.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (nginx, /usr/bin/time, a free port and the table, shared)

ROOT = pathlib.Path(__file__).resolve().parent.parent
FEEDS = 500
ITEMS = 20
BIG_ITEMS = 5000
FILLER = "Words to make an item the size of a real one in a real podcast feed. " * 25


def feed_xml(number, items, base, extra=0, filler=FILLER):
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>',
        f"<title>Bench feed {number}</title><itunes:author>bench</itunes:author>",
    ]
    for index in range(items + extra, 0, -1):
        out.append(
            f"<item><title>Feed {number} item {index}</title><guid>f{number}-i{index}</guid>"
            f"<pubDate>Mon, 02 Nov 2026 {index % 24:02d}:00:00 +0000</pubDate>"
            f'<enclosure url="{base}/media/{number}/{index}.mp3" type="audio/mpeg" length="1000"/>'
            f"<itunes:duration>{600 + index}</itunes:duration>"
            f"<description><![CDATA[<p>{filler}</p>]]></description></item>"
        )
    out.append("</channel></rss>\n")
    return "\n".join(out)


def write_feeds(www, base, changed=None):
    """All the feeds; with `changed`, only those, each with one item more (the others
    keep their files, so nginx keeps their ETags and answers 304)."""
    feeds = www / "feeds"
    feeds.mkdir(parents=True, exist_ok=True)
    for number in range(1, FEEDS + 1):
        if changed is None or number in changed:
            (feeds / f"{number}.xml").write_text(feed_xml(number, ITEMS, base, extra=1 if changed else 0))


def main():
    args = bench.arguments(__doc__)

    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-library-"))
    scratch.chmod(0o755)  # nginx's workers run as another user when this runs as root
    www = scratch / "www"
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    nginx = bench.start_nginx(www, port, scratch)
    env = dict(os.environ, HOME=str(scratch), NO_COLOR="1", FEEDSH_DOWNLOAD_DIR=str(scratch / "downloads"))
    urls = [f"{base}/feeds/{n}.xml" for n in range(1, FEEDS + 1)]
    (scratch / "urls").write_text("\n".join(urls) + "\n")
    (scratch / "config").write_text("")
    opml = "".join(f'<outline type="rss" text="{n}" xmlUrl="{u}"/>\n' for n, u in enumerate(urls, 1))
    (scratch / "feeds.opml").write_text(f'<opml version="2.0"><body>\n{opml}</body></opml>\n')
    samples = {}

    def record(scenario, tool, wall, rss):
        samples.setdefault(scenario, {}).setdefault(tool, []).append((wall, rss))
        print(f"bench: {scenario:40} {tool:28} {wall:7.3f} s {rss / 1024:7.1f} MiB", file=sys.stderr)

    def feedsh(library, commands):
        return [args.feedsh, "--library", str(library), "-c", commands]

    try:
        update = f"update of {FEEDS} feeds, 30 % changed"
        for run in range(args.runs):
            library = scratch / f"update-{run}.sqlite"
            cache = scratch / f"newsboat-{run}.db"
            write_feeds(www, base)
            subprocess.run(feedsh(library, f"import {scratch / 'feeds.opml'}; update"), env=env, check=True,
                           capture_output=True)
            subprocess.run(["newsboat", "-x", "reload", "-u", str(scratch / "urls"), "-c", str(cache),
                            "-C", str(scratch / "config")], env=env, check=True, capture_output=True)
            write_feeds(www, base, changed=set(range(1, FEEDS + 1, 10)) | set(range(2, FEEDS + 1, 10))
                        | set(range(3, FEEDS + 1, 10)))
            os.sync()
            # Alternate which goes first.
            order = ["feedsh", "newsboat"] if run % 2 == 0 else ["newsboat", "feedsh"]
            for tool in order:
                if tool == "feedsh":
                    wall, rss = bench.timed(feedsh(library, "update"), env)
                    record(update, "feedsh update", wall, rss)
                else:
                    wall, rss = bench.timed(["newsboat", "-x", "reload", "-u", str(scratch / "urls"), "-c",
                                             str(cache), "-C", str(scratch / "config")], env)
                    record(update, "newsboat -x reload", wall, rss)

        big = www / "feeds" / "big.xml"
        big.write_text(feed_xml(0, BIG_ITEMS, base, filler=FILLER[:1800]))
        size = big.stat().st_size
        subscribe = f"subscribe to {BIG_ITEMS} items ({size / 1e6:.1f} MB)"
        for run in range(args.runs):
            library = scratch / f"big-{run}.sqlite"
            wall, rss = bench.timed(feedsh(library, f"subscribe {base}/feeds/big.xml"), env)
            record(subscribe, "feedsh subscribe", wall, rss)

        # 500 subscriptions of 200 episodes each.
        feeds = www / "feeds"
        for number in range(1, FEEDS + 1):
            (feeds / f"{number}.xml").write_text(feed_xml(number, 200, base, filler="short"))
        library = scratch / "many.sqlite"
        subprocess.run(feedsh(library, f"import {scratch / 'feeds.opml'}; update"), env=env, check=True,
                       capture_output=True)
        listing = f"podcasts: {FEEDS} subscriptions, {FEEDS * 200:,} episodes"
        for run in range(args.runs * 2):
            wall, rss = bench.timed(feedsh(library, "podcasts"), env)
            record(listing, "feedsh -c podcasts", wall, rss)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    bench.summarize(
        samples,
        reference=lambda tools: "newsboat -x reload" if "newsboat -x reload" in tools else None,
        heading=f"Medians of {args.runs} runs; loopback nginx, {os.cpu_count()} cores.",
        ratio="× newsboat",
        out=pathlib.Path(args.out),
        stem="library",
        digits=3,
    )

if __name__ == "__main__":
    main()
