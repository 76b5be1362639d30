"""Receives help-desk webhook deliveries in a Python service, with the standard library only.

The help desk signs nothing (docs/helpdesk-api.md §5, §6). A webhook declared with a delivery token is registered at a
url whose query carries the token and the event; this kit accepts a POST only when that token is one it was given
(compared in constant time, several at once during a rotation), then hands over the body as the typed record of
its event.

- ``verify_delivery(query, tokens)``: the token check alone.
- ``receive_delivery(method, query, content_type, body, tokens)``: every check on a request already read.
- ``make_wsgi_app(tokens, on_delivery)`` (and ``wsgi.make_server``) and ``make_asgi_app(tokens, on_delivery)``.
- ``DeliveryRouter``: handlers by event, ``@router.on("ticket_opened")``.
- ``parse_delivery(event, body)`` and the record dataclasses (``Ticket``, ``Customer``, ``Message``, ``Agent``),
  generated from the TypeScript kit's schemas.
"""

from ._checks import DeliveryParseError
from ._contract import (
    ACCEPTED_STATUS,
    DEFAULT_MAX_BODY_BYTES,
    DELIVERY_EVENT_PARAM,
    DELIVERY_TOKEN_PARAM,
    DELIVERY_TOKEN_RULE,
    EVENT_RECORD,
    EVENTS,
    MAX_JSON_DEPTH,
    REFUSALS,
)
from ._core import (
    Accepted,
    ReceiverConfigError,
    Reception,
    Refusal,
    Verification,
    accepted_tokens,
    delivery_token_problem,
    is_json_content_type,
    receive_delivery,
    verify_delivery,
)
from ._handler import DeliveryContext, DeliveryRouter
from .asgi import make_asgi_app
from .records import (
    Agent,
    AgentDelivery,
    Customer,
    CustomerDelivery,
    Delivery,
    Link,
    Message,
    MessageDelivery,
    Ticket,
    TicketDelivery,
    parse_delivery,
)
from .wsgi import make_wsgi_app

__all__ = [
    "ACCEPTED_STATUS",
    "DEFAULT_MAX_BODY_BYTES",
    "DELIVERY_EVENT_PARAM",
    "DELIVERY_TOKEN_PARAM",
    "DELIVERY_TOKEN_RULE",
    "EVENT_RECORD",
    "EVENTS",
    "MAX_JSON_DEPTH",
    "REFUSALS",
    "Accepted",
    "Agent",
    "AgentDelivery",
    "Customer",
    "CustomerDelivery",
    "Delivery",
    "DeliveryContext",
    "DeliveryParseError",
    "DeliveryRouter",
    "Link",
    "Message",
    "MessageDelivery",
    "ReceiverConfigError",
    "Reception",
    "Refusal",
    "Ticket",
    "TicketDelivery",
    "Verification",
    "accepted_tokens",
    "delivery_token_problem",
    "is_json_content_type",
    "make_asgi_app",
    "make_wsgi_app",
    "parse_delivery",
    "receive_delivery",
    "verify_delivery",
]
