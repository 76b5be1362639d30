"""The receiver as an ASGI application (ASGI 3.0, the ``http`` scope), for any ASGI server (uvicorn, Hypercorn,
Daphne) and as a route of an ASGI framework (Starlette, FastAPI's ``app.mount``). ``lifespan`` scopes are answered
as supported; ``websocket`` scopes are closed.

It answers as the other kits do (receiver/nodejs/refusals.ts): method (405), token (401, before any of the body is
read), size (413, from Content-Length, or as soon as the body passes the cap while it is read), content (415), event
and record (400), then ``on_delivery`` (204, or 500 when it raises); ``on_delivery`` may be a coroutine function.
"""

from typing import Any, Awaitable, Callable, Iterable, List, MutableMapping, Optional, Tuple, Union

from ._core import Refusal, admit, declared_too_large, parse_body, refused
from ._handler import OnDelivery, OnError, receiver_of

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _header(scope: Scope, name: bytes) -> Optional[str]:
    """A request header's value (the first, as latin-1 text), or ``None`` when absent."""
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _read(receive: Receive, cap: int) -> Optional[bytes]:
    """Reads the body's messages, stopping as soon as it passes ``cap``: ``None`` then."""
    chunks: List[bytes] = []
    total = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("the client went away before its body ended")
        chunk = message.get("body", b"")
        total += len(chunk)
        if total > cap:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _answer(send: Send, outcome: Optional[Refusal]) -> None:
    if outcome is None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    body = outcome.body()
    headers: List[Tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ]
    if outcome.error == "method_not_allowed":
        headers.append((b"allow", b"POST"))
    await send({"type": "http.response.start", "status": outcome.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def make_asgi_app(
    tokens: Union[str, Iterable[str]],
    on_delivery: OnDelivery,
    max_body_bytes: Optional[int] = None,
    on_error: Optional[OnError] = None,
) -> ASGIApp:
    """Makes an ASGI application that receives deliveries.

    :param tokens: the accepted delivery tokens: the webhook's, or several during a rotation
    :param on_delivery: ``(delivery, context)``, a function or a coroutine function (a ``DeliveryRouter``'s
        ``dispatch_async`` fits); raising answers 500 with no detail
    :param max_body_bytes: the body cap (default 1 MiB)
    :param on_error: ``(error, event)``, told why a delivery is answered 500 (default: one line on stderr)
    :raises ReceiverConfigError: at once, when a token or an option is not valid (a token is named by its index only)
    """
    receiver = receiver_of(tokens, on_delivery, max_body_bytes, on_error)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        event = None
        try:
            admitted = admit(scope.get("method", ""), scope.get("query_string", b""), receiver.tokens)
            if isinstance(admitted, Refusal):
                return await _answer(send, admitted)
            event = admitted.event
            declared = declared_too_large(_header(scope, b"content-length"), receiver.cap)
            if declared is not None:
                return await _answer(send, declared)
            body = await _read(receive, receiver.cap)
            if body is None:
                return await _answer(send, refused("too_large"))
            parsed = parse_body(admitted, _header(scope, b"content-type"), body)
            if isinstance(parsed, Refusal):
                return await _answer(send, parsed)
            await _answer(send, await receiver.deliver_async(parsed))
        except Exception as error:  # noqa: BLE001 - the request broke off: 500, why to the reporter only
            receiver.report(error, event)
            try:
                await _answer(send, refused("handler_failed"))
            except Exception:  # noqa: BLE001 - the response had started, or the client is gone
                pass

    return app


__all__ = ["ASGIApp", "make_asgi_app", "mount"]


def mount(receiver: ASGIApp, path: str, app: ASGIApp) -> ASGIApp:
    """ASGI middleware: the ``http`` requests for ``path`` (``scope["path"]``, exactly) go to ``receiver``, every other
    scope (``lifespan`` and ``websocket`` included) to ``app``.

    :param receiver: a receiver app (``make_asgi_app``)
    :param path: where the webhooks deliver, e.g. ``"/hooks/helpdesk"`` (the registered url's path)
    :param app: the service's own ASGI app
    """

    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        chosen = receiver if scope["type"] == "http" and scope.get("path") == path else app
        await chosen(scope, receive, send)

    return routed
