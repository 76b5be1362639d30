"""The Python receiver kit's own units: the token check never raises and never accepts a token it was not given;
tokens and options are checked when an app is made, naming a token by its index only; the WSGI and ASGI apps refuse
a forged POST without reading its body and an over-cap body while it is read; ``on_delivery``'s failure is a 500
with no detail; typed dispatch; and the ``wsgiref`` server keeps no log and makes up no Content-Type."""

import asyncio
import contextlib
import io
import json
import random
import socket
import threading
import unittest
from urllib.parse import quote

from support import ACCEPTED_TOKENS, CASES, body_of, query_of

from pulumi_helpdesk_receiver import (
    EVENTS,
    DeliveryRouter,
    ReceiverConfigError,
    Ticket,
    TicketDelivery,
    accepted_tokens,
    delivery_token_problem,
    is_json_content_type,
    make_asgi_app,
    make_wsgi_app,
    parse_delivery,
    verify_delivery,
)
from pulumi_helpdesk_receiver.wsgi import make_server

TOKEN_A, TOKEN_B = ACCEPTED_TOKENS
TICKET_CASE = next(case for case in CASES["cases"] if case["query"].startswith("helpdesk_event=ticket_opened&"))
TICKET = body_of(TICKET_CASE)
TICKET_QUERY = query_of(TICKET_CASE)
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-"


def random_token(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(22, 64)))


class Verify(unittest.TestCase):
    def test_never_raises_and_never_accepts_a_token_not_given(self) -> None:
        rng = random.Random(44)
        noise_alphabet = "".join(chr(c) for c in range(32, 127)) + "é\u0000\ufffd%&=+"
        for _ in range(2000):
            tokens = [random_token(rng) for _ in range(rng.randint(1, 4))]
            given = rng.choice([random_token(rng), rng.choice(tokens), "", TOKEN_A])
            noise = "".join(rng.choice(noise_alphabet) for _ in range(rng.randint(0, 30)))
            value = quote(given, safe="") if rng.random() < 0.5 else given
            for query in (noise, "helpdesk_token=" + value + "&" + noise):
                verification = verify_delivery(query, tokens)
                if verification.verified:
                    self.assertIn(tokens[verification.token_index], query.replace("%5F", "_").replace("%7E", "~"))
                else:
                    self.assertEqual(verification.token_index, -1)
            alone = verify_delivery("helpdesk_token=" + value, tokens)
            self.assertEqual(alone.verified, given in tokens)
            if alone.verified:
                self.assertEqual(tokens[alone.token_index], given)

    def test_says_which_token_matched_and_the_event(self) -> None:
        query = "helpdesk_event=agent_invited&helpdesk_token=" + TOKEN_B
        found = verify_delivery(query, [TOKEN_A, TOKEN_B])
        self.assertEqual((found.verified, found.token_index, found.event), (True, 1, "agent_invited"))
        self.assertEqual(verify_delivery(query.encode("latin-1"), TOKEN_B).token_index, 0)
        self.assertFalse(verify_delivery(query + "&helpdesk_token=" + TOKEN_B, [TOKEN_B]).verified)
        self.assertFalse(verify_delivery(query, [TOKEN_A]).verified)


class Tokens(unittest.TestCase):
    def test_a_refusal_names_the_index_never_the_token(self) -> None:
        for invalid in ("SECRETshort", "SECRET" + "x" * 300, "SECRET" + "y" * 20 + "/", "SECRET" + "z" * 20 + "é"):
            self.assertIsNotNone(delivery_token_problem(invalid))
            for make in (
                lambda: accepted_tokens([TOKEN_A, invalid]),
                lambda: make_wsgi_app([TOKEN_A, invalid], lambda d, c: None),
                lambda: make_asgi_app([TOKEN_A, invalid], lambda d, c: None),
            ):
                with self.assertRaises(ReceiverConfigError) as raised:
                    make()
                self.assertRegex(str(raised.exception), r"^tokens\[1\]: a delivery token must be ")
                self.assertNotIn(invalid, str(raised.exception))
                self.assertEqual(raised.exception.code, "invalid_tokens")

    def test_at_least_one_and_the_options_are_checked(self) -> None:
        with self.assertRaisesRegex(ReceiverConfigError, "needs at least one delivery token"):
            accepted_tokens([])
        with self.assertRaisesRegex(ReceiverConfigError, "max_body_bytes must be a positive whole number"):
            make_wsgi_app(TOKEN_A, lambda d, c: None, max_body_bytes=0)
        with self.assertRaisesRegex(ReceiverConfigError, "on_delivery must be callable"):
            make_asgi_app(TOKEN_A, None)  # type: ignore[arg-type]
        self.assertEqual(accepted_tokens(TOKEN_A), (TOKEN_A,))


class ContentType(unittest.TestCase):
    def test_json_media_types_and_no_others(self) -> None:
        for yes in (None, "", "application/json", " Application/JSON ; charset=utf-8", "text/x+json"):
            self.assertTrue(is_json_content_type(yes), yes)
        for no in ("text/plain", "application/notjson", "+json", "/json", "application/+json", "a/b/c+json", ";"):
            self.assertFalse(is_json_content_type(no), no)


class Records(unittest.TestCase):
    def test_typed_records_and_named_failures(self) -> None:
        delivery = parse_delivery("ticket_opened", json.loads(TICKET))
        self.assertIsInstance(delivery, TicketDelivery)
        self.assertIsInstance(delivery.record, Ticket)
        self.assertEqual((delivery.kind, delivery.record.number, delivery.record.title), ("ticket", 1042, "Cannot sign in"))
        ticket = json.loads(TICKET)
        for number, ok in ((1042.0, True), (True, False), (2**53, False), (-(2**53) + 1, True), (float("inf"), False)):
            ticket["number"] = number
            try:
                self.assertEqual(parse_delivery("ticket_opened", ticket).record.number, int(number))
                self.assertTrue(ok, number)
            except ValueError as error:
                self.assertFalse(ok, number)
                self.assertEqual(error.field, "number")  # type: ignore[attr-defined]
        with self.assertRaisesRegex(ValueError, r'^unknown webhook event "ticket_reopened"'):
            parse_delivery("ticket_reopened", {})
        self.assertEqual(len(EVENTS), 14)


class Router(unittest.TestCase):
    def test_handlers_in_order_and_unknown_events_refused(self) -> None:
        seen = []
        router = DeliveryRouter()

        @router.on("ticket_opened")
        def first(delivery, context):
            seen.append("first " + str(delivery.record.number))

        @router.on("ticket_opened", "ticket_closed")
        def second(delivery, context):
            seen.append(delivery.event + " " + str(context.token_index))

        router.on_any(lambda delivery, context: seen.append("any " + delivery.kind))
        app = make_wsgi_app([TOKEN_A, TOKEN_B], router.dispatch)
        status, _, _ = call_wsgi(app, "POST", TICKET_QUERY, TICKET)
        self.assertEqual(status, "204 No Content")
        self.assertEqual(seen, ["first 1042", "ticket_opened 0", "any ticket"])
        with self.assertRaisesRegex(ReceiverConfigError, r"^on\('ticket_reopened'\): not an event; the events are "):
            router.on("ticket_reopened")

    def test_a_coroutine_handler_needs_the_asgi_app(self) -> None:
        router = DeliveryRouter()

        @router.on("ticket_opened")
        async def handler(delivery, context):
            pass

        errors = []
        app = make_wsgi_app(TOKEN_A, router.dispatch, on_error=lambda error, event: errors.append(str(error)))
        self.assertEqual(call_wsgi(app, "POST", TICKET_QUERY, TICKET)[0], "500 Internal Server Error")
        self.assertEqual(errors, ["a coroutine handler needs the ASGI app: pass router.dispatch_async as on_delivery"])


class Unreadable(io.RawIOBase):
    """A request body that must not be read."""

    def read(self, size: int = -1) -> bytes:
        raise AssertionError("the body was read")


def call_wsgi(app, method, query, body, stream=None, length=None, content_type=None):
    environ = {
        "REQUEST_METHOD": method,
        "QUERY_STRING": query,
        "CONTENT_LENGTH": str(len(body) if length is None else length),
        "wsgi.input": stream if stream is not None else io.BytesIO(body),
    }
    if content_type is not None:
        environ["CONTENT_TYPE"] = content_type
    answered = {}

    def start_response(status, headers):
        answered["status"], answered["headers"] = status, dict(headers)

    chunks = b"".join(app(environ, start_response))
    return answered["status"], answered["headers"], chunks


class Wsgi(unittest.TestCase):
    def test_a_declared_length_over_the_cap_is_refused_unread(self) -> None:
        app = make_wsgi_app(TOKEN_A, lambda d, c: self.fail("handled"), max_body_bytes=100)
        status, headers, body = call_wsgi(app, "POST", TICKET_QUERY, b"", stream=Unreadable(), length=101)
        self.assertEqual((status, json.loads(body)["error"]), ("413 Content Too Large", "too_large"))
        self.assertEqual(headers["Content-Type"], "application/json")

    def test_a_forged_post_is_refused_with_its_large_body_unread(self) -> None:
        app = make_wsgi_app(TOKEN_A, lambda d, c: self.fail("handled"))
        status, _, body = call_wsgi(app, "POST", "helpdesk_event=ticket_opened", b"", stream=Unreadable(), length=10**6)
        self.assertEqual((status, json.loads(body)["error"]), ("401 Unauthorized", "unauthorized"))

    def test_a_failing_handler_is_a_500_with_no_detail(self) -> None:
        def fail(delivery, context):
            raise RuntimeError("the database is down")

        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            status, _, body = call_wsgi(make_wsgi_app(TOKEN_A, fail), "POST", TICKET_QUERY, TICKET)
        self.assertEqual(status, "500 Internal Server Error")
        self.assertEqual(json.loads(body), {"error": "handler_failed", "message": "the receiver failed to handle the delivery"})
        self.assertEqual(stderr.getvalue(), "a ticket_opened delivery was answered 500: RuntimeError: the database is down\n")
        self.assertNotIn(TOKEN_A, stderr.getvalue())


class Asgi(unittest.TestCase):
    def run_app(self, app, query, chunks, headers=()):
        received = []
        sent = []

        async def receive():
            received.append(1)
            if len(received) > len(chunks):
                return {"type": "http.disconnect"}
            more = len(received) < len(chunks)
            return {"type": "http.request", "body": chunks[len(received) - 1], "more_body": more}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "POST", "query_string": query.encode("latin-1"), "headers": list(headers)}
        asyncio.run(app(scope, receive, send))
        return sent[0]["status"], sent[1]["body"], len(received)

    def test_an_over_cap_body_is_refused_while_it_is_read(self) -> None:
        app = make_asgi_app(TOKEN_A, lambda d, c: self.fail("handled"), max_body_bytes=5000)
        status, body, reads = self.run_app(app, TICKET_QUERY, [b" " * 1000] * 100)
        self.assertEqual((status, json.loads(body)["error"]), (413, "too_large"))
        self.assertEqual(reads, 6)

    def test_a_forged_post_is_refused_unread(self) -> None:
        app = make_asgi_app(TOKEN_A, lambda d, c: self.fail("handled"))
        status, _, reads = self.run_app(app, "helpdesk_event=ticket_opened", [TICKET])
        self.assertEqual((status, reads), (401, 0))

    def test_a_coroutine_handler_is_awaited(self) -> None:
        seen = []
        router = DeliveryRouter()

        @router.on("ticket_opened")
        async def handler(delivery, context):
            await asyncio.sleep(0)
            seen.append(delivery.record.number)

        app = make_asgi_app(TOKEN_A, router.dispatch_async)
        status, _, _ = self.run_app(app, TICKET_QUERY, [TICKET[:100], TICKET[100:]], [(b"content-type", b"application/json")])
        self.assertEqual((status, seen), (204, [1042]))

    def test_lifespan_is_supported(self) -> None:
        app = make_asgi_app(TOKEN_A, lambda d, c: None)
        messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
        sent = []

        async def receive():
            return next(messages)

        async def send(message):
            sent.append(message["type"])

        asyncio.run(app({"type": "lifespan"}, receive, send))
        self.assertEqual(sent, ["lifespan.startup.complete", "lifespan.shutdown.complete"])


class Mount(unittest.TestCase):
    def test_wsgi_the_path_goes_to_the_receiver_the_rest_to_the_app(self) -> None:
        from pulumi_helpdesk_receiver.wsgi import mount

        seen = []

        def service(environ, start_response):
            start_response("200 OK", [])
            return [b"service"]

        app = mount(make_wsgi_app(TOKEN_A, lambda d, c: seen.append(d.event)), "/hooks", service)
        for path, status in (("/hooks", "204 No Content"), ("/other", "200 OK"), ("/hooks/", "200 OK")):
            environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": TICKET_QUERY,
                       "CONTENT_LENGTH": str(len(TICKET)), "wsgi.input": io.BytesIO(TICKET)}
            answered = {}
            b"".join(app(environ, lambda s, h: answered.update(status=s)))
            self.assertEqual(answered["status"], status, path)
        self.assertEqual(seen, ["ticket_opened"])

    def test_asgi_the_path_goes_to_the_receiver_every_other_scope_to_the_app(self) -> None:
        from pulumi_helpdesk_receiver.asgi import mount

        others = []

        async def service(scope, receive, send):
            others.append((scope["type"], scope.get("path")))

        app = mount(make_asgi_app(TOKEN_A, lambda d, c: None), "/hooks", service)
        sent = []

        async def receive():
            return {"type": "http.request", "body": TICKET, "more_body": False}

        async def send(message):
            sent.append(message)

        query = TICKET_QUERY.encode()
        asyncio.run(app({"type": "http", "method": "POST", "path": "/hooks", "query_string": query, "headers": []}, receive, send))
        asyncio.run(app({"type": "http", "method": "POST", "path": "/other", "query_string": query, "headers": []}, receive, send))
        asyncio.run(app({"type": "lifespan"}, receive, send))
        self.assertEqual(sent[0]["status"], 204)
        self.assertEqual(others, [("http", "/other"), ("lifespan", None)])


class WsgirefServer(unittest.TestCase):
    def test_no_made_up_content_type_and_no_log(self) -> None:
        seen = []
        app = make_wsgi_app(TOKEN_A, lambda d, c: seen.append(d.event))
        server = make_server("127.0.0.1", 0, app)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        stderr = io.StringIO()
        try:
            with contextlib.redirect_stderr(stderr):
                for request in (
                    b"POST /h?" + TICKET_QUERY.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: "
                    + str(len(TICKET)).encode() + b"\r\nConnection: close\r\n\r\n" + TICKET,
                    # Four words: wsgiref's error page would quote the whole request line, the token with it.
                    b"POST /h?" + TICKET_QUERY.encode() + b" EXTRA HTTP/1.1\r\n\r\n",
                ):
                    with socket.create_connection(("127.0.0.1", server.server_port)) as connection:
                        connection.sendall(request)
                        answer = b""
                        while True:
                            chunk = connection.recv(65536)
                            if not chunk:
                                break
                            answer += chunk
                    self.assertTrue(answer.startswith(b"HTTP/1."), answer)
                    self.assertNotIn(TOKEN_A.encode(), answer)
        finally:
            server.shutdown()
            server.server_close()
        # No Content-Type was sent: wsgiref alone would say text/plain, which is refused with 415.
        self.assertEqual(seen, ["ticket_opened"])
        self.assertEqual(stderr.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
