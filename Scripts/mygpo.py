#!/usr/bin/env python3
"""gPodder's own client library, mygpoclient, as the reference client of the sync
tests (run from the venv `make test-deps` makes: .build-venv/bin/python).

    mygpo.py read ROOT USER PASSWORD            the server's episode actions, as JSON
    mygpo.py upload ROOT USER PASSWORD JSON     uploads actions given as a JSON list
    mygpo.py subscriptions ROOT USER PASSWORD DEVICE   the device's subscriptions
    mygpo.py subscribe ROOT USER PASSWORD DEVICE URL...  subscribes the device to URLs
    mygpo.py upload-file ROOT USER PASSWORD FILE   uploads a JSON list, 1,000 a request,
                                                and reads every action back (bench)
"""
import json
import sys

from mygpoclient import api


def main(argv):
    command, root, user, password = argv[1:5]
    client = api.MygPodderClient(user, password, root_url=root)
    if command == "read":
        changes = client.download_episode_actions(since=0)
        print(json.dumps([action.to_dictionary() for action in changes.actions]))
    elif command == "upload":
        actions = [api.EpisodeAction(**fields) for fields in json.loads(argv[5])]
        client.upload_episode_actions(actions)
    elif command == "upload-file":
        with open(argv[5]) as file:
            actions = [api.EpisodeAction(**fields) for fields in json.load(file)]
        for start in range(0, len(actions), 1000):
            client.upload_episode_actions(actions[start:start + 1000])
        print(len(client.download_episode_actions(since=0).actions))
    elif command == "subscriptions":
        # opodsync's simple API answers objects, gpodder.net's plain URLs.
        feeds = client.get_subscriptions(argv[5])
        print(json.dumps(sorted(f["feed"] if isinstance(f, dict) else f for f in feeds)))
    elif command == "subscribe":
        client.update_subscriptions(argv[5], argv[6:], [])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
