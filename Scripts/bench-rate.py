#!/usr/bin/env python3
"""`make bench`: `--limit-rate` against curl's and wget's at 200k, 1M and 10M.

nginx on 127.0.0.1 serves two 64 MiB files and a lookup that lists them. For each
cap, curl and wget (`--limit-rate CAP`, one file) and feedsh (`--limit-rate CAP -c
'lookup; get 1-2; wait'`: two downloads sharing the cap) run for a fixed window
while the bytes on disk are sampled every 50 ms. Reported, as medians of `--runs`
alternating runs: the achieved rate over the window after its first second, as a
ratio to the cap, and the most bytes in any one second after the first, as a ratio
to the cap (the issue's bound is 1.5). A tool that finished the whole file inside
the first second shows its rate as `done`: Debian 12's curl 7.88.1 does so on
loopback at most caps (its limit misses here), which is why wget is measured too.

Run from the repository root after `swift build -c release`.
"""
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (nginx, a free port and the options, shared)

MiB = 1 << 20
CAPS = [("200k", 200 << 10), ("1M", 1 << 20), ("10M", 10 << 20)]
TOOLS = ["curl", "wget", "feedsh"]
WINDOW = 6.0
SAMPLE = 0.05


def bytes_under(folder):
    total = 0
    for path, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".json"):
                continue
            try:
                total += os.stat(os.path.join(path, name)).st_size
            except FileNotFoundError:
                pass
    return total


def sample(command, folder, env):
    """Runs `command` for WINDOW seconds, sampling the bytes under `folder`;
    returns [(seconds, bytes)]."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.monotonic()
    samples = []
    while True:
        now = time.monotonic() - start
        samples.append((now, bytes_under(folder)))
        if now >= WINDOW or process.poll() is not None:
            break
        time.sleep(SAMPLE)
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    return samples


def judge(samples, cap):
    """(achieved rate / cap, the most bytes in any second after the first / cap), or
    None when the transfer was over within its first second."""
    # The clock starts at the first byte: start-up (the lookup) is not the cap's.
    first = next((t for t, b in samples if b > 0), None)
    if first is None:
        return None
    timeline = [(t - first, b) for t, b in samples if t >= first]
    after = [(t, b) for t, b in timeline if t >= 1.0]
    # Nothing moved after the first second: the whole file was there already.
    if len(after) < 2 or after[0][1] == after[-1][1]:
        return None
    rate = (after[-1][1] - after[0][1]) / (after[-1][0] - after[0][0])
    worst = 0
    for i, (t0, b0) in enumerate(after):
        for t1, b1 in after[i + 1:]:
            if t1 - t0 > 1.0:
                break
            worst = max(worst, b1 - b0)
    return rate / cap, worst / cap


def main():
    args = bench.arguments(__doc__)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-rate-"))
    www = scratch / "www"
    www.mkdir()
    for name in ("one.bin", "two.bin"):
        with open(www / name, "wb") as f:
            f.write(os.urandom(64 * MiB))
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    results = [{"collectionId": 1, "collectionName": "Rate", "artistName": "feedsh bench"}]
    for number, name in enumerate(["one.bin", "two.bin"], start=1):
        results.append({
            "collectionId": 1, "trackId": 2000 + number, "trackName": name,
            "episodeUrl": f"{base}/{name}", "releaseDate": f"2026-01-0{3 - number}T00:00:00Z",
        })
    (www / "lookup.json").write_text(json.dumps({"resultCount": len(results), "results": results}))
    nginx = bench.start_nginx(www, port, scratch)
    rows = []
    try:
        for label, cap in CAPS:
            measured = {tool: [] for tool in TOOLS}
            for _ in range(args.runs):
                for tool in TOOLS:
                    folder = scratch / "out"
                    shutil.rmtree(folder, ignore_errors=True)
                    folder.mkdir()
                    env = dict(os.environ, HOME=str(scratch), FEEDSH_ITUNES_URL=f"{base}/bench",
                               FEEDSH_DOWNLOAD_DIR=str(folder), FEEDSH_LIBRARY=str(scratch / "library.sqlite"))
                    if tool == "curl":
                        command = ["curl", "-s", "--limit-rate", label, "-o", str(folder / "one.bin"), f"{base}/one.bin"]
                    elif tool == "wget":
                        command = ["wget", "-q", f"--limit-rate={label}", "-O", str(folder / "one.bin"), f"{base}/one.bin"]
                    else:
                        command = [args.feedsh, "--limit-rate", label, "-c", "lookup; get 1-2; wait"]
                    measured[tool].append(judge(sample(command, folder, env), cap))
            row = [label]
            for tool in TOOLS:
                runs = [m for m in measured[tool] if m is not None]
                if not runs:
                    row += ["done", "-"]
                    continue
                row.append(f"{statistics.median(r for r, _ in runs):.2f}")
                row.append(f"{statistics.median(w for _, w in runs):.2f}")
            rows.append(row)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"\n--limit-rate: achieved rate and worst second after the first, as ratios to the cap "
          f"(medians of {args.runs}; feedsh: two downloads sharing the cap)")
    header = ["cap"] + [f"{tool} {what}" for tool in TOOLS for what in ("rate", "worst")]
    print("  ".join(f"{h:>12}" for h in header))
    for row in rows:
        print("  ".join(f"{cell:>12}" for cell in row))


if __name__ == "__main__":
    main()
