"""A GraphQL chat server on Strawberry (PyPI), served by uvicorn: subscriptions over graphql-transport-ws, for the
end-to-end tests of `--protocol graphql`. Run with a Python that has strawberry-graphql, uvicorn and websockets (the
tests look for the virtual environment `.ci/run` makes).

Usage: graphql_server.py PORT [TOKEN]

    subscription { messages(room: "lobby") }          every text sent to the room, as it is sent
    mutation { send(room: "lobby", text: "…") }       sends a text to every subscriber of the room

With TOKEN, a connection_init whose payload has no {"token": TOKEN} is refused (Strawberry closes the socket with 4403
Forbidden), as a server that authenticates its subscribers does.
"""
import asyncio
import sys
import typing

import strawberry
import uvicorn
from strawberry.asgi import GraphQL

ROOMS: dict = {}  # room -> set of asyncio.Queue, one per subscription
TOKEN = sys.argv[2] if len(sys.argv) > 2 else None


@strawberry.type
class Query:
    @strawberry.field
    def hello(self) -> str:
        return "hello"


@strawberry.type
class Mutation:
    @strawberry.mutation
    def send(self, room: str, text: str) -> bool:
        for queue in ROOMS.get(room, ()):
            queue.put_nowait(text)
        return True


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def messages(self, room: str) -> typing.AsyncGenerator[str, None]:
        queue: asyncio.Queue = asyncio.Queue()
        ROOMS.setdefault(room, set()).add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            ROOMS[room].discard(queue)


class App(GraphQL):
    async def on_ws_connect(self, context):
        if TOKEN is not None:
            params = context.get("connection_params") or {}
            if not isinstance(params, dict) or params.get("token") != TOKEN:
                from strawberry.exceptions import ConnectionRejectionError
                raise ConnectionRejectionError({"reason": "wrong token"})
        return None


schema = strawberry.Schema(query=Query, mutation=Mutation, subscription=Subscription)
app = App(schema)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", ws="websockets")
