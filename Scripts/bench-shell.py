#!/usr/bin/env python3
"""`make bench`: the interactive shell at scale, in one run.

1. `get all` of a 5,000-episode subscription typed at the prompt (feedsh in a
   pseudo-terminal): the time until the prompt is back with every download queued,
   against `episodes --no-pager` of the same 5,000 in the same shell; then the CPU
   the shell uses over 5 s while 3 downloads trickle (20 kB/s each, nginx's
   `limit_rate`) and 4,997 wait, against the same shell idle with none.
2. `podcast 1; episodes --limit 10` of a 200,000-episode subscription: wall time and
   peak RSS, against the same command on a 5,000-episode one (1.0 would mean it
   does not grow with the podcast).

Medians of `--runs`. Run from the repository root after building feedsh in release
mode.
"""
import fcntl
import os
import pathlib
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (nginx, /usr/bin/time, a free port and the table, shared)

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUEUED = 5000
HUGE = 200_000
BENCH_PROMPT = rb"[\r\n]feedsh:Bench> "
SLOW = """
        location /slow/ {
            limit_rate 20k;
            default_type audio/mpeg;
            try_files /media.bin =404;
        }
"""


def feed(items, base, media):
    """A feed of `items` small items (no show notes: 200,000 of them stay under
    feedsh's 64 MiB feed limit), newest first."""
    out = ['<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Bench</title>']
    for index in range(items, 0, -1):
        out.append(
            f"<item><title>Item {index}</title><guid>i{index}</guid>"
            f"<pubDate>Mon, 02 Nov 2026 {index % 24:02d}:00:00 +0000</pubDate>"
            f'<enclosure url="{base}/{media}/{index}.mp3" type="audio/mpeg" length="1048576"/></item>'
        )
    out.append("</channel></rss>\n")
    return "\n".join(out)


class Terminal:
    """feedsh at a prompt in a pseudo-terminal of 120 × 40."""

    def __init__(self, command, env):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        start_new_session=True, close_fds=True)
        os.close(slave)
        self.output = b""

    def send(self, text):
        os.write(self.master, text.encode())

    def expect(self, pattern, timeout=120):
        """Reads until `pattern` (bytes regex) shows in what came since the last
        match; returns the seconds it took."""
        start = time.monotonic()
        while True:
            if re.search(pattern, self.output):
                self.output = b""
                return time.monotonic() - start
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise SystemExit(f"bench: no {pattern!r} after {timeout} s; the screen ended with:\n"
                                 f"{self.output[-2000:].decode(errors='replace')}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    raise SystemExit("bench: feedsh went away")

    def command(self, line, prompt):
        self.output = b""
        self.send(line + "\r")
        return self.expect(prompt)

    def cpu_seconds(self):
        fields = pathlib.Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def cpu_over(self, seconds):
        """CPU seconds used over `seconds`, reading what it prints meanwhile."""
        before = self.cpu_seconds()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], max(0, end - time.monotonic()))
            if ready:
                os.read(self.master, 65536)
        return self.cpu_seconds() - before

    def close(self):
        self.process.kill()
        self.process.wait()
        os.close(self.master)


def main():
    args = bench.arguments(__doc__)

    scratch = pathlib.Path(tempfile.mkdtemp(prefix="feedsh-bench-shell-"))
    scratch.chmod(0o755)  # nginx's workers run as another user when this runs as root
    www = scratch / "www"
    (www / "feeds").mkdir(parents=True)
    with open(www / "media.bin", "wb") as f:
        f.write(os.urandom(1 << 20))
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    nginx = bench.start_nginx(www, port, scratch, extra=SLOW)
    env = dict(os.environ, HOME=str(scratch), NO_COLOR="1", TERM="xterm-256color", LANG="C.UTF-8",
               FEEDSH_DOWNLOAD_DIR=str(scratch / "downloads"))
    (www / "feeds" / "queued.xml").write_text(feed(QUEUED, base, "slow"))
    (www / "feeds" / "huge.xml").write_text(feed(HUGE, base, "media"))
    samples = {}

    def record(scenario, tool, value, rss):
        samples.setdefault(scenario, {}).setdefault(tool, []).append((value, rss))
        print(f"bench: {scenario:44} {tool:34} {value:7.3f} {rss / 1024:7.1f} MiB", file=sys.stderr)

    def subscribe(library, url):
        subprocess.run([args.feedsh, "--library", str(library), "-c", f"subscribe {url}"], env=env, check=True,
                       capture_output=True)

    try:
        prompt_back = f"prompt back after get all of {QUEUED:,} (s)"
        idle = f"CPU over 5 s with {QUEUED:,} queued (s)"
        for run in range(args.runs):
            library = scratch / f"queued-{run}.sqlite"
            subscribe(library, f"{base}/feeds/queued.xml")
            shutil.rmtree(scratch / "downloads", ignore_errors=True)
            shell = Terminal([args.feedsh, "--library", str(library), "--no-pager"], env)
            try:
                shell.expect(rb"feedsh> ")
                shell.command("podcast 1", BENCH_PROMPT)
                record(idle, "shell with no downloads", shell.cpu_over(5), 0)
                record(prompt_back, "episodes (5,000 rows)", shell.command("episodes", BENCH_PROMPT), 0)
                record(prompt_back, "get all", shell.command("get all", ("feedsh:Bench \u2193%d> " % QUEUED).encode()), 0)
                record(idle, "shell with 3 running, 4,997 queued", shell.cpu_over(5), 0)
                shell.command("cancel all --yes", rb"cancelled")
            finally:
                shell.close()

        small = scratch / "small.sqlite"
        subscribe(small, f"{base}/feeds/queued.xml")
        huge = scratch / "huge.sqlite"
        print(f"bench: subscribing to {HUGE:,} items (once)", file=sys.stderr)
        subscribe(huge, f"{base}/feeds/huge.xml")
        listing = "podcast 1; episodes --limit 10 (s)"
        for run in range(args.runs):
            for library, tool in [(small, f"{QUEUED:,} episodes"), (huge, f"{HUGE:,} episodes")]:
                wall, rss = bench.timed([args.feedsh, "--library", str(library), "-c",
                                         "podcast 1; episodes --limit 10"], env)
                record(listing, tool, wall, rss)
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    references = {"episodes (5,000 rows)", "shell with no downloads", f"{QUEUED:,} episodes"}
    bench.summarize(
        samples,
        reference=lambda tools: next((name for name in tools if name in references), None),
        heading=f"Medians of {args.runs} runs; loopback nginx, {os.cpu_count()} cores. The first column is seconds "
                "(of wall time, or of CPU for the CPU rows).",
        ratio="× reference",
        out=pathlib.Path(args.out),
        stem="shell",
        digits=3,
    )


if __name__ == "__main__":
    main()
