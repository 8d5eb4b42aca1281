#!/usr/bin/env python3
"""`make bench`: feedsh's downloads against curl and aria2c, in one run.

nginx on 127.0.0.1 serves a 1 GiB file, eight 128 MiB files, a 64 MiB file and an
iTunes-style lookup that lists them as episodes, so feedsh is measured through its
real path (`lookup; get N; wait`, with its .part file, fsync and rename). Each
scenario runs every tool in turn, alternating, `--runs` times; the table gives
medians of wall time and peak RSS (from /usr/bin/time -v) and the ratio to curl.

Run from the repository root after `swift build -c release`.
"""
import argparse
import json
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MiB = 1 << 20
FILES = {"big.bin": 1024 * MiB, "small.bin": 64 * MiB}
FILES.update({f"part{i}.bin": 128 * MiB for i in range(1, 9)})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_files(www):
    www.mkdir(parents=True, exist_ok=True)
    for name, size in FILES.items():
        path = www / name
        if path.exists() and path.stat().st_size == size:
            continue
        print(f"bench: writing {name} ({size // MiB} MiB)", file=sys.stderr)
        with open(path, "wb") as f:
            left = size
            while left:
                chunk = os.urandom(min(left, 8 * MiB))
                f.write(chunk)
                left -= len(chunk)


def write_lookup(www, base):
    names = ["big.bin"] + [f"part{i}.bin" for i in range(1, 9)] + ["small.bin"]
    results = [{"collectionId": 1, "collectionName": "Benchmark", "artistName": "feedsh bench"}]
    for number, name in enumerate(names, start=1):
        results.append({
            "collectionId": 1,
            "trackId": 1000 + number,
            "trackName": name,
            "episodeUrl": f"{base}/{name}",
            "releaseDate": "2026-01-01T00:00:00Z",
        })
    (www / "lookup.json").write_text(json.dumps({"resultCount": len(results), "results": results}))


def start_nginx(www, port, scratch, extra="", log=None, workers="1", connections=64):
    """nginx serving `www` on `port`; `extra` adds directives to its server block;
    with `log`, each request's status goes to that file, one a line."""
    conf = scratch / "nginx.conf"
    conf.write_text(f"""
daemon off;
worker_processes {workers};
pid {scratch}/nginx.pid;
error_log stderr error;
events {{ worker_connections {connections}; }}
http {{
    log_format status '$status $request_uri';
    access_log {f"{log} status" if log else "off"};
    sendfile on;
    tcp_nopush on;
    client_body_temp_path {scratch};
    proxy_temp_path {scratch};
    fastcgi_temp_path {scratch};
    uwsgi_temp_path {scratch};
    scgi_temp_path {scratch};
    types {{ application/octet-stream bin; }}
    server {{
        listen 127.0.0.1:{port};
        root {www};
        location = /bench/lookup {{
            default_type text/javascript;
            alias {www}/lookup.json;
        }}
{extra}
    }}
}}
""")
    process = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(scratch)])
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("bench: nginx did not start")


def timed(command, env):
    """Runs a command under /usr/bin/time -v; returns (seconds, peak RSS in KiB)."""
    result = subprocess.run(["/usr/bin/time", "-v"] + command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench: {' '.join(command)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    wall = rss = None
    for line in result.stderr.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            clock = line.rsplit(" ", 1)[1]
            parts = [float(p) for p in clock.split(":")]
            wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
        elif line.startswith("Maximum resident set size"):
            rss = int(line.rsplit(" ", 1)[1])
    return wall, rss


def arguments(doc, extra=None):
    """The options every bench script takes (--runs, --feedsh, --out), and `extra`'s."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--feedsh", default=str(ROOT / ".build/release/feedsh"))
    parser.add_argument("--out", default=str(ROOT / "bench-out"))
    if extra:
        extra(parser)
    return parser.parse_args()


def main():
    args = arguments(__doc__, lambda parser: parser.add_argument(
        "--baseline", help="another feedsh binary (an older build) to run beside this one"))

    www = ROOT / ".build-bench/www"
    make_files(www)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    write_lookup(www, base)
    nginx = start_nginx(www, port, scratch)
    downloads = scratch / "downloads"
    env = dict(os.environ, HOME=str(scratch), FEEDSH_ITUNES_URL=f"{base}/bench", NO_COLOR="1")

    def feedsh(engine, selection, concurrent=3, binary=None):
        return [binary or args.feedsh, "--engine", engine, "--max-concurrent", str(concurrent),
                "--download-dir", str(downloads), "-c", f"lookup 1 --limit 20; get {selection}; wait"]

    parts = [f"part{i}.bin" for i in range(1, 9)]
    curl_parallel = ["curl", "-sS", "--parallel", "--parallel-max", "8"]
    for name in parts:
        curl_parallel += ["-o", str(downloads / name), f"{base}/{name}"]
    scenarios = {
        "1 GiB": {
            "feedsh (ahc)": feedsh("ahc", "1"),
            "feedsh (urlsession)": feedsh("urlsession", "1"),
            "curl -o": ["curl", "-sS", "-o", str(downloads / "big.bin"), f"{base}/big.bin"],
            # What feedsh does and curl does not: make the file durable before it counts.
            "curl -o, then sync FILE": ["sh", "-c", f'curl -sS -o "$0" {base}/big.bin && sync "$0"',
                                        str(downloads / "big.bin")],
            "aria2c": ["aria2c", "-q", "--allow-overwrite=true", "--file-allocation=none",
                       "-d", str(downloads), "-o", "big.bin", f"{base}/big.bin"],
        },
        "64 MiB": {
            "feedsh (ahc)": feedsh("ahc", "10"),
            "curl -o": ["curl", "-sS", "-o", str(downloads / "small.bin"), f"{base}/small.bin"],
        },
        "8 x 128 MiB": {
            "feedsh (ahc) --max-concurrent 8": feedsh("ahc", "2-9", concurrent=8),
            "curl --parallel": curl_parallel,
        },
    }
    if args.baseline:
        scenarios["1 GiB"]["baseline feedsh (ahc)"] = feedsh("ahc", "1", binary=args.baseline)
        scenarios["64 MiB"]["baseline feedsh (ahc)"] = feedsh("ahc", "10", binary=args.baseline)
    samples = {s: {tool: [] for tool in tools} for s, tools in scenarios.items()}
    try:
        for run in range(args.runs):
            for scenario, tools in scenarios.items():
                for tool, command in tools.items():
                    shutil.rmtree(downloads, ignore_errors=True)
                    downloads.mkdir(parents=True)
                    # Flush what the previous tool left dirty (curl does not sync), so
                    # that no run pays for another's writeback.
                    os.sync()
                    wall, rss = timed(command, env)
                    samples[scenario][tool].append((wall, rss))
                    print(f"bench: run {run + 1} {scenario:12} {tool:34} {wall:6.2f} s {rss / 1024:7.1f} MiB",
                          file=sys.stderr)
                    if run == 0 and "feedsh" in tool and scenario == "1 GiB":
                        got = downloads / "1" / "1001.bin"
                        if subprocess.run(["cmp", "-s", str(got), str(www / "big.bin")]).returncode != 0:
                            raise SystemExit(f"bench: {tool} wrote a file that differs from the source")
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    summarize(
        samples,
        reference=lambda tools: [t for t in tools if t.startswith("curl")][0],  # the plain curl
        heading=f"Medians of {args.runs} runs, loopback nginx (sendfile), {os.cpu_count()} cores; "
        "ratio = wall time / curl's in the same scenario.",
        ratio="× curl",
        out=pathlib.Path(args.out),
        stem="results",
    )


def summarize(samples, reference, heading, ratio, out, stem, digits=2):
    """Prints and writes (`{stem}.md`, `{stem}.json`) the medians of each tool's runs
    per scenario, with the ratio of its wall time to the scenario's `reference(tools)`
    tool (None: no ratio)."""
    lines = [heading, "", f"| scenario | tool | wall (s) | {ratio} | peak RSS (MiB) |", "|---|---|---:|---:|---:|"]
    report = {}
    for scenario, tools in samples.items():
        name = reference(tools)
        reference_wall = statistics.median(w for w, _ in tools[name]) if name else None
        for tool, runs in tools.items():
            wall = statistics.median(w for w, _ in runs)
            rss = statistics.median(r for _, r in runs) / 1024
            shown = f"{wall / reference_wall:.2f}" if reference_wall else "-"
            report.setdefault(scenario, {})[tool] = {"wall": wall, "rss_mib": rss, "runs": runs}
            lines.append(f"| {scenario} | {tool} | {wall:.{digits}f} | {shown} | {rss:.1f} |")
    table = "\n".join(lines)
    print(table)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text(table + "\n")
    (out / f"{stem}.json").write_text(json.dumps(report, indent=1))

if __name__ == "__main__":
    main()
