#!/usr/bin/python3
"""A chat relay of known capacity, for `bench capacity`: the i-th subscriber (in the order they joined, from 0) gets
each line DELAY_MS × i after it arrived, so a broadcast's spread is (subscribers − 1) × DELAY_MS by construction.
With OUTLIER_SHARE and OUTLIER_MS, that share of the lines (drawn at random) reaches one subscriber, drawn at random,
OUTLIER_MS later still: rare outliers that do not move the relay's true p99 while they are under 1% of the lines.

Usage: slow_relay_server.py DELAY_MS [OUTLIER_SHARE OUTLIER_MS] PORT_FILE

Listens on 127.0.0.1 and a free port, which it writes to PORT_FILE (written whole, then renamed into place). Newline-delimited (`--framing line`): a
connection that sends the line "JOIN" is subscribed; any other line, from any connection, is relayed to every
subscriber, each after its own delay. Standard library only.
"""
import asyncio
import os
import random
import sys

SUBSCRIBERS = []


async def relay(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float, outlier_share: float, outlier: float
) -> None:
    loop = asyncio.get_running_loop()
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            if line.rstrip(b"\r\n") == b"JOIN":
                SUBSCRIBERS.append(writer)
                continue
            if not line.endswith(b"\n"):
                line += b"\n"
            subscribers = list(SUBSCRIBERS)
            late = random.randrange(len(subscribers)) if subscribers and random.random() < outlier_share else -1
            for index, subscriber in enumerate(subscribers):
                wait = delay * index + (outlier if index == late else 0)
                if wait == 0:
                    subscriber.write(line)
                else:
                    loop.call_later(wait, lambda s=subscriber, l=line: s.is_closing() or s.write(l))
    except (ConnectionError, OSError, asyncio.LimitOverrunError, ValueError):
        pass
    finally:
        if writer in SUBSCRIBERS:
            SUBSCRIBERS.remove(writer)
        writer.close()


async def main(delay: float, outlier_share: float, outlier: float, port_file: str) -> None:
    # A backlog of 4096 (asyncio's default is 100): a burst of 2,000 subscribers' connects waits in the accept queue
    # whole while the relay is busy, as with a real chat server (511 for nginx and Node), instead of overflowing it
    # until the kernel prunes a half-open connection and resets the subscriber behind it.
    server = await asyncio.start_server(
        lambda r, w: relay(r, w, delay, outlier_share, outlier), "127.0.0.1", 0, limit=1 << 20, backlog=4096)
    with open(port_file + ".tmp", "w") as file:
        file.write(str(server.sockets[0].getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    share, outlier_ms = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) == 5 else (0.0, 0.0)
    asyncio.run(main(float(sys.argv[1]) / 1000, share, outlier_ms / 1000, sys.argv[-1]))
