#!/usr/bin/python3
"""A TCP echo server (asyncio, standard library only), for end-to-end tests of `roundtrip --target tcp://`.

Usage: framed_echo_server.py PORT

Listens on 127.0.0.1:PORT and writes every byte it reads back on the same connection, verbatim and in order: it
knows no framing, so it echoes every one (length32, length16, line, stx).
"""
import asyncio
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


async def main(port: int) -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
