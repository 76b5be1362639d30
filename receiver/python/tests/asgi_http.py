"""A small HTTP/1.1 server of the standard library (asyncio) that runs an ASGI application, for the tests: the
standard library has no ASGI server. One request per connection (``Connection: close``), a body of Content-Length
bytes or chunked, the body handed to the app in the chunks it arrives in (so that the app's cap is tested while
reading), and ``http.disconnect`` when the connection is gone."""

import asyncio
from typing import Any, Callable, Dict, List, Optional, Tuple

_REASONS = {204: "No Content", 400: "Bad Request", 401: "Unauthorized", 405: "Method Not Allowed",
            413: "Content Too Large", 415: "Unsupported Media Type", 500: "Internal Server Error"}


async def _body_chunks(reader: asyncio.StreamReader, headers: List[Tuple[bytes, bytes]]):
    """Yields the request body's chunks as they arrive."""
    values = {name: value for name, value in headers}
    if values.get(b"transfer-encoding", b"").lower() == b"chunked":
        while True:
            size = int((await reader.readline()).split(b";")[0].strip(), 16)
            if size == 0:
                await reader.readline()
                return
            yield await reader.readexactly(size)
            await reader.readline()
    remaining = int(values.get(b"content-length", b"0"))
    while remaining > 0:
        chunk = await reader.read(min(65536, remaining))
        if not chunk:
            raise ConnectionError("the connection closed before the body ended")
        remaining -= len(chunk)
        yield chunk


async def _serve_one(app: Callable[..., Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        request_line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
        method, target, _ = request_line.split(" ", 2)
        headers: List[Tuple[bytes, bytes]] = []
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.partition(b":")
            headers.append((name.strip().lower(), value.strip()))
        path, _, query = target.partition("?")
        scope: Dict[str, Any] = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode("latin-1"),
            "query_string": query.encode("latin-1"), "headers": headers,
            "client": writer.get_extra_info("peername"), "server": writer.get_extra_info("sockname"),
        }
        chunks = _body_chunks(reader, headers)
        ended = False

        async def receive() -> Dict[str, Any]:
            nonlocal ended
            if ended:
                return {"type": "http.disconnect"}
            try:
                chunk = await chunks.__anext__()
                return {"type": "http.request", "body": chunk, "more_body": True}
            except StopAsyncIteration:
                ended = True
                return {"type": "http.request", "body": b"", "more_body": False}

        status: Optional[int] = None

        async def send(message: Dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                head = "HTTP/1.1 " + str(status) + " " + _REASONS.get(status, "") + "\r\n"
                lines = [name.decode("latin-1") + ": " + value.decode("latin-1") for name, value in message["headers"]]
                lines.append("Connection: close")
                writer.write((head + "\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            elif message["type"] == "http.response.body":
                writer.write(message.get("body", b""))
                if not message.get("more_body", False):
                    await writer.drain()

        await app(scope, receive, send)
    except (ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    finally:
        try:
            writer.close()
            await writer.wait_closed()
        except ConnectionError:
            pass


async def serve(app: Callable[..., Any], host: str, port: int, ready: Callable[[int], None]) -> None:
    """Serves ``app`` until cancelled; ``ready`` gets the port once listening."""
    server = await asyncio.start_server(lambda r, w: _serve_one(app, r, w), host, port)
    ready(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()
