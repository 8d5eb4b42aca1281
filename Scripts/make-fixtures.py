#!/usr/bin/env python3
"""Writes the fixtures in Fixtures/: iTunes lookups and searches, posts, Met
objects and small images.

The fixtures are invented for feedsh (no real API data is copied). They follow the
shape of Apple's lookup responses: the first result is the podcast, the rest are
episodes. Run from the repository root: python3 Scripts/make-fixtures.py
"""
import json
import random
import struct
import zlib
from datetime import datetime, timedelta, timezone

ART = "https://artwork.invalid/feedsh/{}/600x600bb.jpg"


def podcast(pid, name, artist, count, genres, seconds=None, full=True):
    record = {
        "collectionId": pid,
        "collectionName": name,
        "artistName": artist,
        "artworkUrl600": ART.format(pid),
    }
    if full:
        record.update({
            "wrapperType": "track",
            "kind": "podcast",
            "trackId": pid,
            "trackName": name,
            "feedUrl": f"https://feeds.invalid/{pid}.xml",
            "collectionViewUrl": f"https://podcasts.apple.com/us/podcast/id{pid}?uo=4",
            "artworkUrl100": ART.format(pid).replace("600x600", "100x100"),
            "releaseDate": "2026-11-02T09:00:00Z",
            "trackCount": count,
            "primaryGenreName": genres[0],
            "genreIds": [str(1300 + i) for i in range(len(genres))],
            "genres": genres,
            "country": "USA",
        })
    if seconds is not None:
        # On the podcast record Apple puts seconds here, not milliseconds.
        record["trackTimeMillis"] = seconds
    return record


def episode(pid, pname, eid, title, date, millis, description, full=True, ext="mp3"):
    record = {
        "collectionId": pid,
        "trackId": eid,
        "trackName": title,
        "releaseDate": date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "episodeUrl": f"https://media.invalid/{pid}/{eid}.{ext}?source=itunes",
    }
    if millis is not None:
        record["trackTimeMillis"] = millis
    if full:
        record.update({
            "wrapperType": "podcastEpisode",
            "kind": "podcast-episode",
            "collectionName": pname,
            "description": description,
            "shortDescription": description[:60],
            "episodeFileExtension": ext,
            "episodeContentType": "audio",
            "artworkUrl600": ART.format(eid),
            "genres": [{"name": "Technology", "id": "1318"}],
            "episodeGuid": f"feedsh-{eid}",
            "country": "USA",
        })
    return record


def write(path, results, leading=""):
    body = json.dumps({"resultCount": len(results), "results": results},
                      ensure_ascii=False, indent=1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(leading + body + leading + "\n")


def default_lookup():
    pid = 1386867488
    name = "Loopback Radio"
    base = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
    titles = [
        ("Ports, Sockets and the Art of Listening", 2_712_000),
        ("Range Requests: Resuming What Was Lost", 3_155_000),
        ("The ETag Whisperer", 1_980_000),
        ("Backpressure, or Why Memory Stays Flat", 4_021_000),
        ("Terminals, Escape Codes and Honest Output", 2_467_000),
    ]
    results = [podcast(pid, name, "feedsh fixtures", len(titles), ["Technology", "Podcasts"])]
    for i, (title, ms) in enumerate(titles):
        eid = 1000700000001 + i
        desc = (f"Episode {len(titles) - i} of {name}. We talk about {title.lower()}, "
                "with examples you can run on your own machine.\nShow notes: https://feeds.invalid/notes")
        results.append(episode(pid, name, eid, title, base - timedelta(days=7 * i), ms, desc))
    write("Fixtures/itunes/lookup-1386867488.json", results)


def large_lookup():
    pid = 1000000001
    name = "The Long Archive"
    rng = random.Random(1000000001)
    count = 60
    results = [podcast(pid, name, "feedsh fixtures", count, ["History", "Podcasts"])]
    base = datetime(2026, 10, 30, 6, 30, tzinfo=timezone.utc)
    topics = ["Bridges", "Clocks", "Lighthouses", "Maps", "Printing", "Canals", "Telegraphs",
              "Observatories", "Railways", "Libraries"]
    for i in range(count):
        eid = 1000800000000 + i
        topic = topics[i % len(topics)]
        title = f"#{count - i:03d} A Short History of {topic}, Part {i // len(topics) + 1}"
        millis = rng.randrange(900, 9000) * 1000
        desc = f"{topic} and the people who built them. Part {i // len(topics) + 1}."
        results.append(episode(pid, name, eid, title, base - timedelta(days=3 * i), millis, desc))
    write("Fixtures/itunes/lookup-1000000001.json", results)


def quirks_lookup():
    """Every quirk DESIGN.md lists, in one response."""
    pid = 1000000002
    name = "Quirks \u201cand\u201d Edge\u00a0Cases"
    results = [podcast(pid, name, "feedsh fixtures", 6, ["Comedy"], seconds=1800, full=False)]
    d = lambda day, h: datetime(2026, 9, day, h, 0, 5, tzinfo=timezone.utc)
    # Not in date order; wrapperType/kind missing on some; IDs beyond 32 bits.
    results.append(episode(pid, name, 1000900000003, "Third, listed first", d(20, 8), 61_000,
                           "No\u00a0break spaces\u00a0and zero\u200bwidth spaces.", full=False))
    results.append(episode(pid, name, 1000900000001, "No duration here", d(1, 12), None,
                           "trackTimeMillis is missing.", full=True))
    results.append(episode(pid, name, 1000900000002,
                           "Escape \u001b[31mred\u001b[0m and bell\u0007 in a title",
                           d(10, 9), 3_723_000,
                           "\u2018Curly\u2019 quotes, \u001b]0;pwned\u0007 an OSC title change,\r\nand CRLF.",
                           full=True))
    # A malformed episode: trackId is not a number. It must be skipped with a warning.
    bad = episode(pid, name, 1000900000004, "Malformed trackId", d(12, 9), 1000, "bad", full=True)
    bad["trackId"] = "not-a-number"
    results.append(bad)
    results.append(episode(pid, name, 1000900000005, "An M4A episode with 4-byte ID \U0001F399\uFE0F",
                           d(15, 9), 599_000, "Emoji and extension m4a.", full=True, ext="m4a"))
    results.append(episode(pid, name, 1000900000006, "Japanese title: \u97f3\u58f0\u30c6\u30b9\u30c8",
                           d(16, 9), 125_000, "Wide characters.", full=False))
    write("Fixtures/itunes/lookup-1000000002.json", results, leading="\n\n\n")


def malformed_podcast():
    pid = 1000000003
    record = podcast(pid, "Broken Podcast Record", "feedsh fixtures", 1, ["Technology"])
    record["collectionName"] = 42  # a number where a string belongs
    results = [record, episode(pid, "Broken", 1000990000001, "Fine episode",
                               datetime(2026, 1, 1, tzinfo=timezone.utc), 1000, "ok")]
    write("Fixtures/itunes/lookup-1000000003.json", results)


def hostile_numbers():
    """Numbers a careless or hostile server sends: lengths that overflow an integer,
    a negative one, a repeated trackId."""
    pid = 1000000004
    name = "Hostile Numbers"
    results = [podcast(pid, name, "feedsh fixtures", 5, ["Technology"])]
    d = lambda day: datetime(2026, 11, day, 9, tzinfo=timezone.utc)
    results.append(episode(pid, name, 1000400000001, "A length of 1e300 ms", d(5), 1e300, "Overflows."))
    results.append(episode(pid, name, 1000400000002, "A length past Int64", d(4), 9.3e18, "Overflows Int64."))
    results.append(episode(pid, name, 1000400000003, "A negative length", d(3), -5000, "Negative."))
    results.append(episode(pid, name, 1000400000004, "An honest length", d(2), 754_000, "Twelve minutes."))
    results.append(episode(pid, name, 1000400000001, "The same trackId again", d(1), 60_000, "Repeats."))
    write("Fixtures/itunes/lookup-1000000004.json", results)


def podcast_search():
    """Podcasts the fixture server's /search?media=podcast filters by term."""
    shows = [
        (1386867488, "Loopback Radio", "feedsh fixtures", 5, "Technology"),
        (1000000001, "The Long Archive", "feedsh fixtures", 60, "History"),
        (1000000002, "Quirks \u201cand\u201d Edge\u00a0Cases", "feedsh fixtures", 6, "Comedy"),
        (1000000010, "Radio Waves Weekly", "Antenna Club", 212, "Science"),
        (1000000011, "The History of Radio", "Marconi Society", 48, "History"),
        (1000000012, "Swift on the Server", "Server Crew", 97, "Technology"),
        (1000000013, "Quiet Mornings", "Slow Studio", 30, "Arts"),
    ]
    results = []
    for pid, name, artist, count, genre in shows:
        results.append({
            "wrapperType": "track", "kind": "podcast",
            "collectionId": pid, "trackId": pid,
            "collectionName": name, "trackName": name, "artistName": artist,
            "feedUrl": f"https://feeds.invalid/{pid}.xml",
            "artworkUrl600": ART.format(pid),
            "trackCount": count, "primaryGenreName": genre,
            "genres": [genre, "Podcasts"],
            "releaseDate": "2026-10-01T08:00:00Z",
        })
    write("Fixtures/itunes/search-podcasts.json", results)


def posts():
    """JSONPlaceholder-style posts and comments, invented: 100 posts by 10 users."""
    rng = random.Random(100)
    words = ("signal carrier antenna relay packet socket stream buffer window range "
             "resume pause cache header status terminal prompt cursor archive episode").split()
    def sentence(n):
        return " ".join(rng.choice(words) for _ in range(n))
    post_list = []
    comments = []
    for pid in range(1, 101):
        post_list.append({
            "userId": (pid - 1) // 10 + 1,
            "id": pid,
            "title": sentence(rng.randrange(3, 8)),
            "body": "\n".join(sentence(rng.randrange(6, 12)) for _ in range(3)),
        })
        for c in range(5):
            cid = (pid - 1) * 5 + c + 1
            comments.append({
                "postId": pid,
                "id": cid,
                "name": sentence(rng.randrange(2, 5)),
                "email": f"reader{cid}@example.invalid",
                "body": sentence(rng.randrange(5, 10)),
            })
    with open("Fixtures/posts/posts.json", "w") as f:
        json.dump(post_list, f, indent=1)
    with open("Fixtures/posts/comments.json", "w") as f:
        json.dump(comments, f, separators=(",", ":"))


def music_search():
    """Songs the fixture server's /search?media=music filters by term."""
    songs = [
        (2000000001, "Carrier Wave", "The Loopbacks", "Localhost", 214000, True),
        (2000000002, "Port 8080", "The Loopbacks", "Localhost", 187500, True),
        (2000000003, "Time to Live", "The Loopbacks", "Localhost", 241066, False),
        (2000000004, "Handshake", "Syn & Ack", "Three Ways", 198000, True),
        (2000000005, "Keep‑Alive", "Syn & Ack", "Three Ways", 305000, True),
        (2000000006, "Café Blå", "Nørd Folk", "Første", 172000, True),
        (2000000007, "Silence (Interlude)", "Nørd Folk", "Første", None, False),
        (2000000008, "Radio Days", "Antenna Club", "Static", 226000, True),
    ]
    results = []
    for tid, name, artist, album, millis, preview in songs:
        record = {
            "wrapperType": "track", "kind": "song",
            "artistId": tid // 1000, "collectionId": tid // 10, "trackId": tid,
            "artistName": artist, "collectionName": album, "trackName": name,
            "artworkUrl100": f"https://artwork.invalid/music/{tid}/100x100bb.jpg",
            "releaseDate": "2024-05-17T07:00:00Z",
            "primaryGenreName": "Pop", "country": "USA", "currency": "USD",
            "trackPrice": 1.29, "isStreamable": True,
        }
        if millis is not None:
            record["trackTimeMillis"] = millis
        if preview:
            record["previewUrl"] = f"https://media.invalid/previews/{tid}.plus.aac.p.m4a"
        results.append(record)
    write("Fixtures/itunes/search-music.json", results)


def met_objects():
    """Met collection objects, invented, with the quirks of the real API: empty
    strings for missing values, null constituents and tags, HTML entities, and
    metadataDate with one to three fractional digits."""
    def obj(oid, title, artist, date, medium, department, image=None, public=True,
            constituents="default", tags="default", stamp="2025-01-10T04:52:17.107Z"):
        return {
            "objectID": oid, "isHighlight": False, "accessionNumber": f"2026.{oid}",
            "accessionYear": "2026", "isPublicDomain": public,
            "primaryImage": f"https://images.invalid/met/{image}" if image else "",
            "primaryImageSmall": f"https://images.invalid/met/{image}" if image else "",
            "additionalImages": [],
            "constituents": None if constituents is None else ([{
                "constituentID": oid + 1, "role": "Artist", "name": artist,
                "constituentULAN_URL": "(not assigned)", "constituentWikidata_URL": "",
                "gender": "",
            }] if artist else []),
            "department": department, "objectName": medium.split(" ")[0].title() if medium else "",
            "title": title, "culture": "", "period": "", "dynasty": "", "reign": "",
            "portfolio": "", "artistRole": "Artist" if artist else "", "artistPrefix": "",
            "artistDisplayName": artist, "artistDisplayBio": "", "artistSuffix": "",
            "artistAlphaSort": artist, "artistNationality": "", "artistBeginDate": "",
            "artistEndDate": "", "artistGender": "", "artistWikidata_URL": "",
            "artistULAN_URL": "", "objectDate": date, "objectBeginDate": 0, "objectEndDate": 0,
            "medium": medium, "dimensions": "", "measurements": None, "creditLine": "Invented for feedsh",
            "geographyType": "", "city": "", "state": "", "county": "", "country": "", "region": "",
            "subregion": "", "locale": "", "locus": "", "excavation": "", "river": "",
            "classification": "", "rightsAndReproduction": "", "linkResource": "",
            "metadataDate": stamp, "repository": "Metropolitan Museum of Art, New York, NY",
            "objectURL": f"https://www.metmuseum.invalid/art/collection/search/{oid}",
            "tags": None if tags is None else [{"term": t, "AAT_URL": "", "Wikidata_URL": ""}
                                                for t in (tags if tags != "default" else [])],
            "objectWikidata_URL": "", "isTimelineWork": False, "GalleryNumber": "",
        }
    objects = [
        obj(436101, "Wheat Field with Cypresses", "Vincent van Gogh", "1889", "Oil on canvas",
            "European Paintings", image="436101.jpg", tags=["Landscapes", "Cypresses"]),
        obj(436102, "Sunflowers &amp; Sky", "Vincent van Gogh", "1887", "Oil on canvas",
            "European Paintings", image="436102.png", stamp="2024-03-02T10:11:12.5Z"),
        obj(436103, "Study of a Cypress", "Vincent van Gogh", "ca. 1889", "Pen and ink on paper",
            "Drawings and Prints", public=False, stamp="2023-07-19T08:00:00.25Z"),
        obj(436104, "Bridge at Night", "Kawase Hasui", "1930", "Woodblock print; ink and color on paper",
            "Asian Art", image="436104.gif", constituents=None, tags=None),
        obj(436105, "Teapot", "", "18th century", "Porcelain", "European Sculpture and Decorative Arts",
            image="436105.webp", constituents=None),
        obj(436106, "Portrait of a Woman &quot;Anna&quot;", "Unknown &amp; Workshop", "", "Oil on wood",
            "European Paintings", stamp="2022-12-01T00:00:00.1Z"),
        obj(436107, "Cypress Grove (broken record)", "Anonymous", "1901", "Watercolor", "Drawings and Prints"),
        obj(436108, "Harbour at Dawn", "Claude Monet", "1872", "Oil on canvas", "European Paintings",
            image="436108.jpg"),
        obj(436109, "Vase with Cypress Branches", "", "1920s", "Glass", "Modern and Contemporary Art",
            image="missing.jpg"),
    ]
    with open("Fixtures/met/objects.json", "w") as f:
        json.dump(objects, f, indent=1, ensure_ascii=False)
        f.write("\n")


def png(width, height, pixel):
    """A truecolour PNG; pixel(x, y) gives (r, g, b)."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            raw.extend(pixel(x, y))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def gif(width, height):
    """A GIF of one colour. The LZW stream sends a clear code before every second
    pixel, so the code width stays at 3 bits and no table is needed."""
    codes = []
    pixels = width * height
    while pixels > 0:
        codes.append(4)
        take = min(2, pixels)
        codes.extend([1] * take)
        pixels -= take
    codes.append(5)
    bits, nbits, data = 0, 0, bytearray()
    for code in codes:
        bits |= code << nbits
        nbits += 3
        while nbits >= 8:
            data.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8
    if nbits:
        data.append(bits)
    blocks = bytearray()
    for i in range(0, len(data), 255):
        part = data[i:i + 255]
        blocks += bytes([len(part)]) + part
    return (b"GIF89a" + struct.pack("<HHBBB", width, height, 0x81, 0, 0)
            + bytes([0, 0, 0, 0x2E, 0x6B, 0x8A, 0, 0, 0, 0, 0, 0])
            + b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x02" + bytes(blocks) + b"\x00;")


def jpeg(width, height):
    """A mid-grey baseline JPEG. Grey 128 shifts to 0, so every block is DC 0 and
    an end of block: one Huffman symbol per table, two bits per block."""
    def segment(marker, data):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(data) + 2) + data
    out = b"\xff\xd8"
    out += segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    out += segment(0xDB, b"\x00" + bytes([1] * 64))
    out += segment(0xC0, b"\x08" + struct.pack(">HH", height, width) + b"\x01\x01\x11\x00")
    one_symbol = bytes([1] + [0] * 15)
    out += segment(0xC4, b"\x00" + one_symbol + b"\x00")  # DC: category 0 is "0"
    out += segment(0xC4, b"\x10" + one_symbol + b"\x00")  # AC: end of block is "0"
    out += segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    nbits = blocks * 2
    data = bytearray(b"\x00" * (nbits // 8))
    if nbits % 8:
        data.append((1 << (8 - nbits % 8)) - 1)  # pad with ones
    return out + bytes(data) + b"\xff\xd9"


def webp(width, height, argb=0xFF3C78B4):
    """A lossless WebP of one colour: five single-symbol prefix codes, so the pixels
    themselves take no bits."""
    bits, nbits = 0, 0
    def put(value, count):
        nonlocal bits, nbits
        bits |= value << nbits
        nbits += count
    put(width - 1, 14)
    put(height - 1, 14)
    put(0, 1)  # alpha unused
    put(0, 3)  # version
    put(0, 1)  # no transform
    put(0, 1)  # no colour cache
    put(0, 1)  # no meta prefix codes
    a, r, g, b = (argb >> 24) & 0xFF, (argb >> 16) & 0xFF, (argb >> 8) & 0xFF, argb & 0xFF
    for symbol in (g, r, b, a):
        put(1, 1)  # simple code
        put(0, 1)  # one symbol
        put(1, 1)  # of eight bits
        put(symbol, 8)
    put(1, 1)
    put(0, 1)
    put(0, 1)  # distance: one symbol of one bit
    put(0, 1)
    payload = b"\x2f" + bits.to_bytes((nbits + 7) // 8, "little")
    chunk = b"VP8L" + struct.pack("<I", len(payload)) + payload + b"\x00" * (len(payload) % 2)
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def images():
    """Small real images in four formats, served by the fixture server's /images/."""
    import os
    os.makedirs("Fixtures/images", exist_ok=True)
    def save(name, data):
        with open(f"Fixtures/images/{name}", "wb") as f:
            f.write(data)
    save("artwork.jpg", jpeg(600, 600))
    save("photo.png", png(200, 150, lambda x, y: ((x * 7 + y) % 256, (y * 5) % 256, (x ^ y) % 256)))
    save("tiles.gif", gif(64, 48))
    save("swatch.webp", webp(100, 80))


def encoded_feeds():
    """Feeds whose bytes matter: ISO-8859-1 and Windows-1252 declared in the prolog,
    a UTF-8 BOM, and an entity-expansion bomb. (quirks.rss, atom.xml and the OPML
    files are written by hand: their text is the point.)"""
    def item(title, guid, url):
        return (f"<item><title>{title}</title><guid>{guid}</guid>\n"
                f'<enclosure url="{url}" type="audio/mpeg"/></item>\n')
    latin = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<rss version="2.0"><channel><title>Caf\u00e9 Cr\u00e8me</title>\n'
             + item("D\u00e9j\u00e0 vu \u00a7 \u00bd", "latin-1", "https://latin.example/1.mp3") + "</channel></rss>\n")
    with open("Fixtures/feeds/latin1.rss", "wb") as f:
        f.write(latin.encode("latin-1"))
    cp = ('<?xml version="1.0" encoding="windows-1252"?>\n<rss version="2.0"><channel>'
          "<title>\u201cSmart\u201d \u2013 Quotes\u2026</title>\n"
          + item("\u20ac5 episode", "cp-1", "https://cp.example/1.mp3") + "</channel></rss>\n")
    with open("Fixtures/feeds/cp1252.rss", "wb") as f:
        f.write(cp.encode("cp1252"))
    bom = ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>With a BOM</title>\n'
           + item("\u97f3\u58f0", "bom-1", "https://bom.example/1.mp3") + "</channel></rss>\n")
    with open("Fixtures/feeds/bom.rss", "wb") as f:
        f.write(b"\xef\xbb\xbf" + bom.encode("utf-8"))
    entities = ['<!ENTITY lol "lollollollollollollollollollol">']
    for level in range(1, 10):
        previous = "lol" if level == 1 else f"lol{level - 1}"
        entities.append(f'<!ENTITY lol{level} "' + f"&{previous};" * 10 + '">')
    bomb = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n ' + "\n ".join(entities) + "\n]>\n"
            '<rss version="2.0"><channel><title>&lol9;</title>\n'
            + item("&lol9;", "bomb", "https://bomb.example/1.mp3") + "</channel></rss>\n")
    with open("Fixtures/feeds/bomb.rss", "w") as f:
        f.write(bomb)


def hostile_links():
    """Episode URLs no player or download may open: a local file and a script."""
    pid = 1000000005
    name = "Hostile Links"
    results = [podcast(pid, name, "feedsh fixtures", 3, ["Technology"])]
    d = lambda day: datetime(2026, 11, day, 9, tzinfo=timezone.utc)
    local = episode(pid, name, 1000500000001, "A local file", d(5), 60_000, "Opens /etc/passwd.")
    local["episodeUrl"] = "file:///etc/passwd"
    script = episode(pid, name, 1000500000002, "A script", d(4), 60_000, "Runs a script.")
    script["episodeUrl"] = "javascript:alert(1)"
    results += [local, script, episode(pid, name, 1000500000003, "An honest episode", d(3), 60_000, "Fine.")]
    write("Fixtures/itunes/lookup-1000000005.json", results)


if __name__ == "__main__":
    music_search()
    met_objects()
    images()
    default_lookup()
    large_lookup()
    quirks_lookup()
    malformed_podcast()
    hostile_numbers()
    hostile_links()
    podcast_search()
    posts()
    encoded_feeds()
