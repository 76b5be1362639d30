"""A receiver built with the Python kit, for tests/receiver/kits.test.ts: ``python serve.py wsgi|asgi``. It takes the
accepted tokens from the environment (``RECEIVER_TOKENS``, comma-separated), listens on 127.0.0.1 at a free port,
prints ``listening <port>`` and ``delivered <json>`` for each accepted delivery (support.py); its handler raises on a
record with the field ``fail_the_handler``. ``wsgi`` serves ``make_wsgi_app`` with the kit's ``wsgiref`` server;
``asgi`` serves ``make_asgi_app`` with asgi_http.py (the standard library has no ASGI server)."""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from support import fails_the_handler, summarize  # noqa: E402

from pulumi_helpdesk_receiver import make_asgi_app, make_wsgi_app  # noqa: E402
from pulumi_helpdesk_receiver.wsgi import make_server  # noqa: E402

TOKENS = os.environ.get("RECEIVER_TOKENS", "").split(",")


def on_delivery(delivery, context):
    if fails_the_handler(delivery):
        raise RuntimeError("the handler under test fails on fail_the_handler")
    print("delivered " + json.dumps(summarize(delivery, context.token_index)), flush=True)


async def on_delivery_async(delivery, context):
    await asyncio.sleep(0)
    on_delivery(delivery, context)


def ready(port: int) -> None:
    print("listening " + str(port), flush=True)


if sys.argv[1:] == ["wsgi"]:
    server = make_server("127.0.0.1", 0, make_wsgi_app(TOKENS, on_delivery))
    ready(server.server_port)
    server.serve_forever()
elif sys.argv[1:] == ["asgi"]:
    from asgi_http import serve

    asyncio.run(serve(make_asgi_app(TOKENS, on_delivery_async), "127.0.0.1", 0, ready))
else:
    print("usage: python serve.py wsgi|asgi", file=sys.stderr)
    sys.exit(2)
