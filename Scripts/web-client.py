#!/usr/bin/env python3
"""The web page of `feedsh serve` in a real browser: Debian's Chromium, headless,
driven through chromedriver by Selenium. Runs one listener's session against a
library the caller set up and prints what it saw as one JSON object, for
Tests/EndToEndTests/WebProcessTests.swift to judge.

Usage: web-client.py BASE_URL FEEDSH SCREENSHOT_DIR
  BASE_URL  http://127.0.0.1:PORT/ of `feedsh serve`
  FEEDSH    the feedsh binary, run for the terminal's side (same environment)

The library holds subscription 1 (the fixture's listening tones: 1:1 is 120 s
with chapters and a transcript saying "aardvark" at 1:15, 1:1 and 1:2 downloaded
and queued) and subscription 2 (the hostile feed, its episode downloaded).
Every wait has a deadline; a step that fails is reported, not hung on."""
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

BASE, FEEDSH, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
report = {"problems": []}


def wait_for(condition, seconds=15, step=0.1):
    """The first true value of condition() within seconds, else None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception:
            pass
        time.sleep(step)
    return None


def shell(commands):
    """feedsh --json -c COMMANDS: the last line's result."""
    done = subprocess.run([FEEDSH, "--json", "-c", commands], capture_output=True, text=True, timeout=60)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return lines[-1] if lines else {"stderr": done.stderr}


def position(ref):
    return (shell(f"show {ref}").get("result") or {}).get("position")


def played(ref):
    return (shell(f"show {ref}").get("result") or {}).get("played")


options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--mute-audio", "--window-size=1280,900",
                 "--autoplay-policy=no-user-gesture-required", "--disable-dev-shm-usage"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
driver.set_script_timeout(30)
js = driver.execute_script


def click(selector, text=None):
    def find():
        for element in driver.find_elements(By.CSS_SELECTOR, selector):
            if element.is_displayed() and (text is None or text in element.text):
                return element
        return None
    element = wait_for(find)
    if element is None:
        raise RuntimeError(f"nothing to click: {selector} {text or ''}")
    element.click()


def audio(expression):
    return js(f"return feedsh.audio.{expression}")


def step(name, body):
    try:
        body()
    except Exception as error:  # noqa: BLE001 - reported, the next step goes on
        report["problems"].append(f"{name}: {type(error).__name__}: {error}")


def first_load():
    driver.get(BASE)
    wait_for(lambda: "Tones for Listening" in driver.find_element(By.ID, "view").text)
    report["home"] = driver.find_element(By.ID, "view").text
    report["firstLoadBytes"] = js(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
        ".reduce((sum, entry) => sum + (entry.transferSize || 0), 0)")
    driver.save_screenshot(f"{SHOTS}/home-1280.png")


def play_pause_and_show():
    js("window.sameDocument = true")
    click("a.title", "Tones for Listening")
    click("a.title", "Tone 1")
    wait_for(lambda: "Transcript" in driver.find_element(By.ID, "view").text and js(
        "return document.querySelectorAll('.cue').length") > 0)
    click("button.primary", "Play")
    report["playingAfter"] = wait_for(lambda: audio("currentTime") >= 3 and audio("currentTime"), 20)
    driver.save_screenshot(f"{SHOTS}/episode-1280.png")
    click("#toggle")
    wait_for(lambda: audio("paused"))
    report["pausedAt"] = audio("currentTime")
    time.sleep(1)
    report["terminalAfterPause"] = position("1:1")
    report["sameDocument"] = js("return window.sameDocument === true")


def terminal_moves_the_place():
    # The terminal plays 1:1 from 1:00 for about two seconds, then Ctrl-C.
    player = subprocess.Popen([FEEDSH, "-c", "play 1:1 --at 60"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(3)
    player.send_signal(signal.SIGINT)
    player.wait(timeout=30)
    report["terminalMovedTo"] = position("1:1")
    driver.refresh()
    click("button.primary", "Play from")
    report["resumedAt"] = wait_for(lambda: not audio("paused") and audio("currentTime"), 15)


def transcript_cue_seeks():
    click(".cue", "aardvark")
    report["cueSeekedTo"] = wait_for(lambda: 74 <= audio("currentTime") <= 80 and audio("currentTime"), 10)
    report["cueHighlighted"] = wait_for(
        lambda: "aardvark" in js("return (document.querySelector('.cue.current') || {}).textContent || ''"), 5)


def keeps_playing_across_views():
    js("window.sameDocument = true")
    before = audio("currentTime")
    click("nav a", "Podcasts")
    wait_for(lambda: "Listening Habits" in driver.find_element(By.ID, "view").text or "Harbour" in
             driver.find_element(By.ID, "view").text)
    time.sleep(1.5)
    report["acrossViews"] = {
        "sameDocument": js("return window.sameDocument === true"),
        "playing": not audio("paused"),
        "advanced": audio("currentTime") - before,
        "path": js("return location.pathname"),
    }
    driver.back()
    report["backTo"] = wait_for(lambda: js("return location.pathname") == "/e/1:1" and "/e/1:1", 5)


def find_plays_from_the_words():
    driver.get(BASE + "find?q=aardvark")
    click("button.hit", "Play at 1:15")
    report["findPlayedAt"] = wait_for(lambda: 74 <= audio("currentTime") <= 80 and audio("currentTime"), 10)
    report["findPlayed"] = js("return feedsh.player.ref")


def queue_goes_on():
    driver.get(BASE + "queue")
    click("button.primary", "Play the queue")
    first = wait_for(lambda: not audio("paused") and js("return feedsh.player.ref"), 15)
    js("feedsh.audio.currentTime = feedsh.audio.duration - 0.5")
    second = wait_for(lambda: js("return feedsh.player.ref") != first and not audio("paused") and
                      js("return feedsh.player.ref"), 20)
    report["queue"] = {"first": first, "second": second, "firstPlayed": played(first) if first else None}
    js("feedsh.audio.pause()")


def hostile_feed_is_text():
    driver.get(BASE + "p/2")
    wait_for(lambda: "Tide tables" in driver.find_element(By.ID, "view").text)
    report["hostileList"] = driver.find_element(By.ID, "view").text
    driver.get(BASE + "e/2:1")
    wait_for(lambda: "the harbour" in driver.find_element(By.ID, "view").text)
    report["hostile"] = {
        "title": driver.title,
        "heading": driver.find_element(By.CSS_SELECTOR, "main h1").text,
        "images": js("return document.querySelectorAll('main img').length"),
        "scripts": js("return document.querySelectorAll('main script').length"),
        "javascriptLinks": js(
            "return [...document.querySelectorAll('a')].filter(a => a.href.startsWith('javascript')).length"),
        "externalLink": js("return [...document.querySelectorAll('.notes a')].map(a => a.href + ' ' + a.rel)"),
    }
    time.sleep(0.5)
    report["hostile"]["titleAfter"] = driver.title


def fits_a_phone():
    driver.set_window_size(360, 800)
    widths = {}
    for path in ["", "p/1", "e/1:1", "find?q=aardvark", "queue", "stats", "bookmarks"]:
        driver.get(BASE + path)
        time.sleep(1)
        widths[path or "/"] = js("return [document.documentElement.scrollWidth, window.innerWidth]")
    report["phoneWidths"] = widths
    driver.get(BASE + "e/1:1")
    click("button.primary", "Play")
    time.sleep(1)
    report["smallTargets"] = js(
        "return [...document.querySelectorAll('button, nav a')].filter(e => e.offsetParent !== null)"
        ".map(e => e.getBoundingClientRect()).filter(r => r.height < 40 || r.width < 40).length")
    js("feedsh.audio.pause()")
    driver.save_screenshot(f"{SHOTS}/episode-360.png")
    driver.get(BASE)
    time.sleep(1)
    driver.save_screenshot(f"{SHOTS}/home-360.png")
    driver.get(BASE + "stats")
    time.sleep(1)
    report["statsBars"] = js("return document.querySelectorAll('svg.chart rect.bar').length")
    driver.save_screenshot(f"{SHOTS}/stats-360.png")
    driver.set_window_size(1280, 900)
    driver.get(BASE + "stats")
    time.sleep(1)
    driver.save_screenshot(f"{SHOTS}/stats-1280.png")


def outside_requests():
    entries = js("return performance.getEntriesByType('resource').map(e => e.name)")
    report["foreignRequests"] = [name for name in entries if not name.startswith(BASE)]
    report["consoleErrors"] = [entry["message"] for entry in driver.get_log("browser")
                               if entry["level"] == "SEVERE" and "/api/artwork/" not in entry["message"]]


def cross_origin_post():
    request = urllib.request.Request(BASE + "api/episodes/1:1/place", data=b'{"seconds": 1}', method="POST",
                                     headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"})
    try:
        urllib.request.urlopen(request, timeout=10)
        report["crossOriginStatus"] = 200
    except urllib.error.HTTPError as error:
        report["crossOriginStatus"] = error.code
    with urllib.request.urlopen(BASE, timeout=10) as response:
        report["policy"] = response.headers.get("Content-Security-Policy")


try:
    for name, body in [("first load", first_load), ("play, pause, show", play_pause_and_show),
                       ("the terminal moves the place", terminal_moves_the_place),
                       ("a cue seeks", transcript_cue_seeks), ("across views", keeps_playing_across_views),
                       ("find", find_plays_from_the_words), ("the queue", queue_goes_on),
                       ("a hostile feed", hostile_feed_is_text), ("a phone", fits_a_phone),
                       ("requests", outside_requests), ("cross-origin", cross_origin_post)]:
        step(name, body)
finally:
    driver.quit()
print(json.dumps(report))
