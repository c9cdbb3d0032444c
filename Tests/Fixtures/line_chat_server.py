#!/usr/bin/python3
"""A newline-delimited chat relay (asyncio, standard library only), for `fanout --target tcp:// --framing line`.

Usage: line_chat_server.py PORT

Listens on 127.0.0.1:PORT. A connection that sends the line "JOIN" is subscribed, and is sent at once one line
without a bench marker ("hello, no marker here"), which the harness must report as an event and go on. Any other
line, from any connection, is relayed (with its newline) to every subscribed connection.
"""
import asyncio
import sys

SUBSCRIBERS = set()
GREETING = b"hello, no marker here\n"


async def chat(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            if line.rstrip(b"\r\n") == b"JOIN":
                SUBSCRIBERS.add(writer)
                writer.write(GREETING)
                continue
            if not line.endswith(b"\n"):
                line += b"\n"
            for subscriber in list(SUBSCRIBERS):
                if subscriber.is_closing():
                    SUBSCRIBERS.discard(subscriber)
                else:
                    subscriber.write(line)
    except (ConnectionError, OSError, asyncio.LimitOverrunError, ValueError):
        pass
    finally:
        SUBSCRIBERS.discard(writer)
        writer.close()


async def main(port: int) -> None:
    server = await asyncio.start_server(chat, "127.0.0.1", port, limit=1 << 20, backlog=4096)  # a connect burst waits whole
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
