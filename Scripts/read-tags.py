#!/usr/bin/python3
"""Reads the ID3 tags of an MP3 the way other taggers do (Debian's
python3-mutagen, the tag library of Quod Libet and beets), for the `copy`
tests, and prints them as one JSON object: {"version": [2, 4, 0], "TIT2": ...}.
Given a folder, it reads every MP3 under it: {"PODCAST/NAME.mp3": {...}, ...}.

Usage: read-tags.py FILE|FOLDER"""
import json
import os
import sys

import mutagen.id3


def read(path):
    tags = mutagen.id3.ID3(path)
    frames = {key: str(tags[key]) for key in ["TIT2", "TALB", "TPE1", "TRCK", "TCON", "TDRC"] if key in tags}
    pictures = [picture.mime for picture in tags.getall("APIC")]
    return {"version": list(tags.version), "pictures": len(pictures), "pictureTypes": pictures, **frames}


target = sys.argv[1]
if os.path.isdir(target):
    found = {}
    for folder, _, names in os.walk(target):
        for name in names:
            if name.endswith(".mp3"):
                path = os.path.join(folder, name)
                found[os.path.relpath(path, target)] = read(path)
    print(json.dumps(found))
else:
    print(json.dumps(read(target)))
