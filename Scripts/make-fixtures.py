#!/usr/bin/env python3
"""Writes the iTunes lookup fixtures in Fixtures/itunes/.

The fixtures are invented for feedsh (no real API data is copied). They follow the
shape of Apple's lookup responses: the first result is the podcast, the rest are
episodes. Run from the repository root: python3 Scripts/make-fixtures.py
"""
import json
import random
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


if __name__ == "__main__":
    default_lookup()
    large_lookup()
    quirks_lookup()
    malformed_podcast()
    podcast_search()
    posts()
