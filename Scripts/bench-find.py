#!/usr/bin/env python3
"""`make bench`: `find` over a large library, against SQLite itself.

nginx on 127.0.0.1 serves 500 feeds of 40 episodes, each with about 1 kB of show
notes drawn from a vocabulary of 5,000 words, and WebVTT transcripts of an hour
(720 cues, about 8,600 words) for 200 of the episodes. feedsh imports and
updates them and fetches the 200 transcripts (`transcript P:E`), not timed.

Timed, medians of `--runs`: `feedsh -c 'find QUERY'` (a whole process: start,
open the library, search, print) for a rare word, the commonest word (in every
episode), a phrase and a prefix; the reference is the same FTS5 queries run by
Python's sqlite3 (the same libsqlite3) on the same file, in-process, and
`feedsh -c queue` on the same library (a process that starts, opens the
library and answers without searching): find's own time is the difference. Also printed: the bytes of the FTS5
index against the bytes of the text it indexes.

Run from the repository root after building feedsh in release mode.
"""
import email.utils
import os
import pathlib
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (nginx, a free port and the table, shared)

FEEDS = 500
EPISODES = 40
TRANSCRIPTS = 200
RARE = "zanzibarite"


def vocabulary(rng, count=5000):
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < count:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


def sentence(rng, words, count):
    # Zipf's law (s = 1), as in speech: the commonest word is about 11 % of the
    # words ("the" is about 6 % of English), the 5,000th occurs once in 45,000.
    weights = ZIPF.get(len(words))
    if weights is None:
        total = 0.0
        weights = ZIPF[len(words)] = []
        for rank in range(1, len(words) + 1):
            total += 1 / rank
            weights.append(total)
    return " ".join(rng.choices(words, cum_weights=weights, k=count))


ZIPF = {}


def write_library(www, base, rng, words):
    feeds = www / "feeds"
    transcripts = www / "transcripts"
    feeds.mkdir(parents=True)
    transcripts.mkdir(parents=True)
    refs = []
    for number in range(1, FEEDS + 1):
        out = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel>',
            f"<title>Bench feed {number}</title>",
        ]
        for index in range(EPISODES, 0, -1):
            transcript = ""
            # The newest episode of the first 200 feeds has a transcript.
            if index == EPISODES and number <= TRANSCRIPTS:
                name = f"{number}.vtt"
                write_transcript(transcripts / name, rng, words, rare=number == TRANSCRIPTS // 2)
                transcript = f'<podcast:transcript url="{base}/transcripts/{name}" type="text/vtt"/>'
                refs.append(f"{number}:1")
            out.append(
                f"<item><title>{sentence(rng, words, 6)}</title><guid>f{number}-i{index}</guid>"
                f"<pubDate>{email.utils.formatdate(1_790_000_000 + index * 3600, usegmt=True)}</pubDate>"
                f'<enclosure url="{base}/media/{number}/{index}.mp3" type="audio/mpeg" length="1000"/>'
                f"{transcript}<description><![CDATA[<p>{sentence(rng, words, 150)}</p>]]></description></item>"
            )
        out.append("</channel></rss>\n")
        (feeds / f"{number}.xml").write_text("\n".join(out))
    return refs


def write_transcript(path, rng, words, rare):
    cues = ["WEBVTT", ""]
    for cue in range(720):
        start = cue * 5
        text = sentence(rng, words, 12)
        if rare and cue == 500:
            text += f" {RARE}"
        cues += [f"{stamp(start)} --> {stamp(start + 5)}", f"<v Speaker {cue % 3}>{text}", ""]
    path.write_text("\n".join(cues))


def stamp(seconds):
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000"


def main():
    args = bench.arguments(__doc__, lambda parser: parser.add_argument(
        "--keep", metavar="PATH", help="copy the library built here to PATH, for a closer look"))
    rng = random.Random(7)
    words = vocabulary(rng)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-find-"))
    scratch.chmod(0o755)  # nginx's workers run as another user when this runs as root
    www = scratch / "www"
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    refs = write_library(www, base, rng, words)
    nginx = bench.start_nginx(www, port, scratch)
    env = dict(os.environ, HOME=str(scratch), NO_COLOR="1", FEEDSH_DOWNLOAD_DIR=str(scratch / "downloads"))
    library = scratch / "library.sqlite"
    opml = "".join(f'<outline type="rss" xmlUrl="{base}/feeds/{n}.xml"/>\n' for n in range(1, FEEDS + 1))
    (scratch / "feeds.opml").write_text(f'<opml version="2.0"><body>\n{opml}</body></opml>\n')
    samples = {}

    def feedsh(commands):
        return [args.feedsh, "--library", str(library), "--no-pager", "-c", commands]

    try:
        started = time.perf_counter()
        subprocess.run(feedsh(f"import {scratch / 'feeds.opml'}; update"), env=env, check=True, capture_output=True)
        fetch = "; ".join(f"transcript {ref}" for ref in refs)
        fetched = subprocess.run(feedsh(fetch), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if fetched.returncode != 0:
            raise SystemExit(f"bench: fetching the transcripts failed:\n{fetched.stderr[-2000:]}")
        print(f"bench: library built in {time.perf_counter() - started:.1f} s", file=sys.stderr)

        database = sqlite3.connect(library)
        index, text = database.execute(
            """SELECT (SELECT sum(pgsize) FROM dbstat
                       WHERE name LIKE 'episodeText%' OR name LIKE 'transcriptText%'),
                      (SELECT sum(length(CAST(title AS BLOB)) + coalesce(length(CAST(summary AS BLOB)), 0))
                       FROM episode) + (SELECT sum(length(CAST(text AS BLOB))) FROM transcriptLine)"""
        ).fetchone()
        counts = database.execute(
            "SELECT (SELECT count(*) FROM episode), (SELECT count(*) FROM transcript)"
        ).fetchone()
        common = words[0]
        phrase = " ".join(words[0:2])
        queries = [
            (f"a rare word ({RARE})", [RARE], f'"{RARE}"'),
            (f"a common word ({common})", [common], f'"{common}"'),
            (f'a phrase ("{phrase}")', [f"'{phrase}'"], f'"{phrase}"'),
            (f"a prefix ({words[1][:3]}*)", [f"{words[1][:3]}*"], f'"{words[1][:3]}"*'),
        ]
        for label, typed, match in queries:
            scenario = f"find {label}"
            for run in range(args.runs):
                began = time.perf_counter()
                result = subprocess.run(feedsh("find " + " ".join(typed)), env=env, capture_output=True, text=True)
                wall = time.perf_counter() - began
                if result.returncode != 0:
                    raise SystemExit(f"bench: find failed:\n{result.stderr[-2000:]}")
                samples.setdefault(scenario, {}).setdefault("feedsh -c find", []).append((wall, 0))
                began = time.perf_counter()
                # What feedsh asks of SQLite: rank the 5,000 newest matches of
                # each table, then snippets for the 20 best.
                for table in ("episodeText", "transcriptText"):
                    best = database.execute(
                        f"SELECT id FROM (SELECT rowid AS id, bm25({table}) AS score FROM {table} "
                        f"WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 5000) ORDER BY score LIMIT 20",
                        (match,),
                    ).fetchall()
                    ids = [rowid for (rowid,) in best]
                    if ids:
                        database.execute(
                            f"SELECT rowid, snippet({table}, -1, '[', ']', '…', 12) FROM {table} "
                            f"WHERE {table} MATCH ? AND rowid BETWEEN ? AND ? "
                            f"AND +rowid IN ({','.join('?' * len(ids))})",
                            (match, min(ids), max(ids), *ids),
                        ).fetchall()
                samples[scenario].setdefault("sqlite3 in-process", []).append((time.perf_counter() - began, 0))
                began = time.perf_counter()
                subprocess.run(feedsh("queue"), env=env, check=True, capture_output=True)
                samples[scenario].setdefault("feedsh -c queue (start-up)", []).append((time.perf_counter() - began, 0))
                print(f"bench: {scenario:40} {wall:7.3f} s", file=sys.stderr)
        database.close()
        if args.keep:
            shutil.copy(library, args.keep)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    print(
        f"\nIndex: {index / 2**20:.1f} MiB for {text / 2**20:.1f} MiB of text "
        f"({index / text:.2f}×); {counts[0]:,} episodes, {counts[1]} transcripts.\n"
    )
    bench.summarize(
        samples,
        reference=lambda tools: "sqlite3 in-process",
        heading=f"Medians of {args.runs} runs; {os.cpu_count()} cores. Wall of a whole feedsh process.",
        ratio="× SQLite alone",
        out=pathlib.Path(args.out),
        stem="find",
        digits=3,
    )


if __name__ == "__main__":
    main()
