"""Test support: the receiver kits' shared cases (receiver/cases.json), read as every kit's tests read them, and a
delivery as a handler under test reports it (the file's ``$comment``), read from this kit's typed records."""

import base64
import json
import os
from typing import Any, Dict, List, Optional

from pulumi_helpdesk_receiver import AgentDelivery, CustomerDelivery, Delivery, MessageDelivery, TicketDelivery

#: receiver/cases.json (this file is receiver/python/tests/support.py).
CASES_FILE = os.path.join(os.path.dirname(__file__), "..", "..", "cases.json")

with open(CASES_FILE, encoding="utf-8") as _file:
    CASES: Dict[str, Any] = json.load(_file)

#: The tokens a receiver under test accepts, in order.
ACCEPTED_TOKENS: List[str] = [CASES["tokens"][name] for name in CASES["accepted"]]


def query_of(case: Dict[str, Any]) -> str:
    """A case's query, the tokens filled in."""
    query = case["query"]
    for name, token in CASES["tokens"].items():
        query = query.replace("{" + name + "}", token)
    return query


def body_of(case: Dict[str, Any]) -> bytes:
    """A case's body, as bytes."""
    if "bodyBase64" in case:
        return base64.b64decode(case["bodyBase64"])
    text: Optional[str] = None
    if "repeat" in case:
        text = "".join(part["text"] * part["count"] for part in case["repeat"])
    elif "bodyText" in case:
        text = case["bodyText"]
    elif "body" in case:
        text = json.dumps(case["body"], separators=(",", ":"), ensure_ascii=False)
        if "nest" in case:
            depth = case["nest"]["depth"]
            text = text[:-1] + "," + json.dumps(case["nest"]["key"]) + ":" + "[" * depth + "]" * depth + "}"
    if text is None:
        return b""
    data = text.encode("utf-8")
    if "padTo" in case:
        data += b" " * (case["padTo"] - len(data))
    return data


def _extra(extra: Dict[str, Any]) -> List[str]:
    return sorted(extra)


def summarize(delivery: Delivery, token_index: int) -> Dict[str, Any]:
    """``{event, kind, tokenIndex, fields}``, the fields read through the record's dataclass."""
    base = {"event": delivery.event, "kind": delivery.kind, "tokenIndex": token_index}
    if isinstance(delivery, TicketDelivery):
        r = delivery.record
        fields = {"number": r.number, "title": r.title, "assignee": r.assignee, "state": r.links.state.href}
    elif isinstance(delivery, CustomerDelivery):
        r = delivery.record
        fields = {"email": r.email, "firstName": r.first_name, "custom": r.custom}
    elif isinstance(delivery, MessageDelivery):
        r = delivery.record
        fields = {"note": r.note, "body": r.body, "ticket": r.links.ticket.href}
    elif isinstance(delivery, AgentDelivery):
        r = delivery.record
        fields = {"email": r.email, "tickets": r.links.tickets.href}
    else:
        raise TypeError("not a delivery: " + type(delivery).__name__)
    fields["extra"] = _extra(r.extra)
    return dict(base, fields=fields)


def fails_the_handler(delivery: Delivery) -> bool:
    """Whether a handler under test fails on this delivery: its record has the field ``fail_the_handler``."""
    return "fail_the_handler" in delivery.record.extra
