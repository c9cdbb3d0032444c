#!/usr/bin/python3
"""A chat relay of known capacity, for `bench capacity`: the i-th subscriber (in the order they joined, from 0) gets
each line DELAY_MS × i after it arrived, so a broadcast's spread is (subscribers − 1) × DELAY_MS by construction.

Usage: slow_relay_server.py DELAY_MS PORT_FILE

Listens on 127.0.0.1 and a free port, which it writes to PORT_FILE (written whole, then renamed into place). Newline-delimited (`--framing line`): a
connection that sends the line "JOIN" is subscribed; any other line, from any connection, is relayed to every
subscriber, each after its own delay. Standard library only.
"""
import asyncio
import os
import sys

SUBSCRIBERS = []


async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
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
            for index, subscriber in enumerate(list(SUBSCRIBERS)):
                if index == 0:
                    subscriber.write(line)
                else:
                    loop.call_later(delay * index, lambda s=subscriber, l=line: s.is_closing() or s.write(l))
    except (ConnectionError, OSError, asyncio.LimitOverrunError, ValueError):
        pass
    finally:
        if writer in SUBSCRIBERS:
            SUBSCRIBERS.remove(writer)
        writer.close()


async def main(delay: float, port_file: str) -> None:
    server = await asyncio.start_server(lambda r, w: relay(r, w, delay), "127.0.0.1", 0, limit=1 << 20)
    with open(port_file + ".tmp", "w") as file:
        file.write(str(server.sockets[0].getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(float(sys.argv[1]) / 1000, sys.argv[2]))
