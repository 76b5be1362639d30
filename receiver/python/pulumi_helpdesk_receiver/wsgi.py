"""The receiver as a WSGI application (PEP 3333), for any WSGI server (gunicorn, uWSGI, mod_wsgi, Waitress, or
``wsgiref`` of the standard library through ``make_server`` below) and as a route of a WSGI framework.

It answers as the other kits do (receiver/nodejs/refusals.ts): method (405), token (401, before any of the body is
read), size (413, from Content-Length, or as soon as the body passes the cap while it is read), content (415), event
and record (400), then ``on_delivery`` (204, or 500 when it raises).
"""

from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer
from wsgiref.simple_server import make_server as _make_server

from ._core import Refusal, admit, declared_too_large, parse_body, refused
from ._handler import OnDelivery, OnError, receiver_of

StartResponse = Callable[..., Any]
WSGIApp = Callable[[Dict[str, Any], StartResponse], Iterable[bytes]]

#: How much of a refused request's body is read and dropped before answering, so that the connection can close
#: without a reset that could lose the answer (a body the client is still sending when the socket closes).
_DRAIN_LIMIT = 64 * 1024


def _read(stream: Any, size: Optional[int], cap: int) -> Optional[bytes]:
    """Reads a body of ``size`` bytes (or, when ``None``, up to the end), stopping past ``cap``: ``None`` then."""
    chunks: List[bytes] = []
    total = 0
    while size is None or total < size:
        want = 65536 if size is None else min(65536, size - total)
        chunk = stream.read(want)
        if not chunk:
            break
        total += len(chunk)
        if total > cap:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _drain(environ: Dict[str, Any]) -> None:
    """Reads and drops a small declared body nobody will read."""
    length = environ.get("CONTENT_LENGTH") or ""
    if length.isdigit() and 0 < int(length) <= _DRAIN_LIMIT:
        try:
            _read(environ["wsgi.input"], int(length), _DRAIN_LIMIT)
        except OSError:
            pass


def make_wsgi_app(
    tokens: Union[str, Iterable[str]],
    on_delivery: OnDelivery,
    max_body_bytes: Optional[int] = None,
    on_error: Optional[OnError] = None,
) -> WSGIApp:
    """Makes a WSGI application that receives deliveries.

    :param tokens: the accepted delivery tokens: the webhook's, or several during a rotation
    :param on_delivery: ``(delivery, context)``, called with each accepted delivery (a ``DeliveryRouter``'s ``dispatch``
        fits); raising answers 500 with no detail
    :param max_body_bytes: the body cap (default 1 MiB)
    :param on_error: ``(error, event)``, told why a delivery is answered 500 (default: one line on stderr)
    :raises ReceiverConfigError: at once, when a token or an option is not valid (a token is named by its index only)
    """
    receiver = receiver_of(tokens, on_delivery, max_body_bytes, on_error)

    def answer(start_response: StartResponse, outcome: Optional[Refusal]) -> List[bytes]:
        if outcome is None:
            start_response("204 No Content", [])
            return []
        body = outcome.body()
        headers: List[Tuple[str, str]] = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
        if outcome.error == "method_not_allowed":
            headers.append(("Allow", "POST"))
        start_response(str(outcome.status) + " " + _REASONS[outcome.status], headers)
        return [body]

    def app(environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        event = None
        try:
            admitted = admit(environ.get("REQUEST_METHOD", ""), environ.get("QUERY_STRING", ""), receiver.tokens)
            if isinstance(admitted, Refusal):
                _drain(environ)
                return answer(start_response, admitted)
            event = admitted.event
            length = environ.get("CONTENT_LENGTH") or None
            declared = declared_too_large(length, receiver.cap)
            if declared is not None:
                return answer(start_response, declared)
            if length is not None and length.strip().isdigit():
                body = _read(environ["wsgi.input"], int(length.strip()), receiver.cap)
            elif environ.get("wsgi.input_terminated"):
                body = _read(environ["wsgi.input"], None, receiver.cap)
            else:
                body = b""  # no length and no end marked: PEP 3333 says not to read
            if body is None:
                return answer(start_response, refused("too_large"))
            # A server may pass an absent Content-Type as "" (PEP 3333 allows it): that is no Content-Type.
            parsed = parse_body(admitted, environ.get("CONTENT_TYPE") or None, body)
            if isinstance(parsed, Refusal):
                return answer(start_response, parsed)
            return answer(start_response, receiver.deliver(parsed))
        except Exception as error:  # noqa: BLE001 - the request broke off: 500, why to the reporter only
            receiver.report(error, event)
            return answer(start_response, refused("handler_failed"))

    return app


_REASONS = {400: "Bad Request", 401: "Unauthorized", 405: "Method Not Allowed", 413: "Content Too Large",
            415: "Unsupported Media Type", 500: "Internal Server Error"}


class RequestHandler(WSGIRequestHandler):
    """``wsgiref``'s request handler with three changes for receivers: a request without Content-Type has none in the
    environ (``wsgiref`` writes ``text/plain`` there, which a receiver would refuse with 415: the help desk promises no
    header, docs/helpdesk-api.md §6); no log line (an access line, or an error line that quotes a bad request line,
    would show the url, whose query holds the token); and an error page of the server's own (a malformed request)
    that does not quote the request line either."""

    def get_environ(self) -> Dict[str, Any]:
        environ = super().get_environ()
        if self.headers.get("Content-Type") is None:
            environ.pop("CONTENT_TYPE", None)
        return environ

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the name is BaseHTTPRequestHandler's
        """No log: the request line holds the token."""

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """The error page without its message, which may quote the request line (``Bad request syntax ('POST
        /hooks?helpdesk_token=...')``): the status's own words only."""
        super().send_error(code)


def make_server(host: str, port: int, app: WSGIApp) -> WSGIServer:
    """A ``wsgiref`` server of the standard library for a receiver app, with ``RequestHandler``: for a service with no
    WSGI server of its own, or for trying a receiver locally (``make_server("127.0.0.1", 8000, app).serve_forever()``).
    """
    return _make_server(host, port, app, handler_class=RequestHandler)


def mount(receiver: WSGIApp, path: str, app: WSGIApp) -> WSGIApp:
    """WSGI middleware: the requests for ``path`` (``PATH_INFO``, exactly) go to ``receiver``, every other to ``app``.

    :param receiver: a receiver app (``make_wsgi_app``)
    :param path: where the webhooks deliver, e.g. ``"/hooks/helpdesk"`` (the registered url's path)
    :param app: the service's own WSGI app
    """

    def routed(environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        return (receiver if environ.get("PATH_INFO", "") == path else app)(environ, start_response)

    return routed
