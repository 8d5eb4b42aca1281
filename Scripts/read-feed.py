#!/usr/bin/env python3
"""Reads a feed the way podcast apps do, for the `feedsh serve` tests: with
gPodder's podcastparser and with Python's feedparser, and prints what each saw
as one JSON object: {"podcastparser": {...}, "feedparser": {...}}.

Usage: read-feed.py URL [USER PASSWORD]"""
import base64
import json
import sys
import urllib.request

import feedparser
import podcastparser

url = sys.argv[1]
headers = {}
if len(sys.argv) == 4:
    token = base64.b64encode(f"{sys.argv[2]}:{sys.argv[3]}".encode()).decode()
    headers["Authorization"] = "Basic " + token

request = urllib.request.Request(url, headers=headers)
body = urllib.request.urlopen(request).read()

parsed = podcastparser.parse(url, __import__("io").BytesIO(body))
gpodder = {
    "title": parsed.get("title"),
    "episodes": [
        {
            "title": episode["title"],
            "guid": episode["guid"],
            "seconds": episode["total_time"],
            "published": episode["published"],
            "enclosures": [
                {"url": e["url"], "length": e["file_size"], "type": e["mime_type"]} for e in episode["enclosures"]
            ],
        }
        for episode in parsed["episodes"]
    ],
}

feed = feedparser.parse(body)
python = {
    "bozo": bool(feed.bozo),
    "title": feed.feed.get("title"),
    "episodes": [
        {
            "title": entry.get("title"),
            "guid": entry.get("id"),
            "duration": entry.get("itunes_duration"),
            "chapters": (entry.get("podcast_chapters") or {}).get("url"),
            "transcript": (entry.get("podcast_transcript") or {}).get("url"),
            "enclosures": [
                {"url": e.get("href"), "length": int(e.get("length", -1)), "type": e.get("type")}
                for e in entry.get("enclosures", [])
            ],
        }
        for entry in feed.entries
    ],
}
print(json.dumps({"podcastparser": gpodder, "feedparser": python}))
