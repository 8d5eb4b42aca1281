#!/usr/bin/python3
"""Reads the ID3 tags of an MP3 the way other taggers do (Debian's
python3-mutagen, the tag library of Quod Libet and beets), for the `copy`
tests, and prints them as one JSON object: {"version": [2, 4, 0], "TIT2": ...}.

Usage: read-tags.py FILE"""
import json
import sys

import mutagen.id3

tags = mutagen.id3.ID3(sys.argv[1])
frames = {key: str(tags[key]) for key in ["TIT2", "TALB", "TPE1", "TRCK", "TCON", "TDRC"] if key in tags}
print(json.dumps({"version": list(tags.version), "pictures": len(tags.getall("APIC")), **frames}))
