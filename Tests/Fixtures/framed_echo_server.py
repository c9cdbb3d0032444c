#!/usr/bin/python3
"""A TCP echo server (asyncio, standard library only), for end-to-end tests of `roundtrip --target tcp://`.

Usage: framed_echo_server.py PORT [PORT_FILE]

Listens on 127.0.0.1:PORT (0: a free port, written to PORT_FILE once listening) and writes every byte it reads back on the same connection, verbatim and in order: it
knows no framing, so it echoes every one (length32, length16, line, stx).
"""
import asyncio
import os
import sys


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def main(port: int, port_file: str | None) -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", port, backlog=1024)
    if port_file:
        with open(port_file + ".tmp", "w") as out:
            out.write(str(server.sockets[0].getsockname()[1]))
        os.replace(port_file + ".tmp", port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None))
