"""The host's wing: the wiring of every layer into the host's jobs, on top of one outbox.

    games.py      a game's life: signups, the deal and its commitment, end of day (read, resolve, draft
                  with its audit), approval, advance, reveal
    daywindow.py  which PMs belong to a day, in the forum's order, with exact or interval times
    tally.py      the running vote count of a day thread
    publish.py    the approved day to the forum: topic, lock, PMs, advance; the draft to the moderators
    watch.py      between day ends: receipts, commands, relays, interim counts, the deadline
    outbox.py     everything the bot writes, delivered exactly once

The CLI only parses arguments, calls these and prints.
"""
