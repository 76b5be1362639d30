"""Verifying and receiving one delivery, whatever the server: the checks in the order every kit makes them (method,
token, size, content, event, record), with the answers of ``_contract.REFUSALS`` (receiver/nodejs/refusals.ts, their
home). The WSGI and ASGI apps run these steps, reading the body between the token check and the rest, so that a forged
POST is refused before its body is read.
"""

import hmac
import json
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union
from urllib.parse import unquote_plus

from ._checks import DeliveryParseError
from ._contract import (
    ACCEPTED_STATUS,
    DEFAULT_MAX_BODY_BYTES,
    DELIVERY_EVENT_PARAM,
    DELIVERY_TOKEN_PARAM,
    DELIVERY_TOKEN_RULE,
    EVENT_RECORD,
    MAX_JSON_DEPTH,
    MAX_TOKEN_LENGTH,
    MIN_TOKEN_LENGTH,
    REFUSALS,
    TOKEN_CHARACTERS,
)
from .records import Delivery, parse_delivery


class ReceiverConfigError(ValueError):
    """Raised when a receiver is given tokens or options it cannot work with, when it is made (never while receiving).

    ``code`` is ``invalid_tokens`` or ``invalid_option``; the message names a token by its index, never the token.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def delivery_token_problem(token: Any) -> Optional[str]:
    """What is wrong with a delivery token, or ``None`` when it is valid; the reason never contains the token.

    The rule is kernel/delivery-token.ts ``deliveryTokenProblem``'s: ``MIN_TOKEN_LENGTH`` to ``MAX_TOKEN_LENGTH``
    characters of ``TOKEN_CHARACTERS`` (generated from it).
    """
    if not isinstance(token, str):
        return "a delivery token must be a string of " + DELIVERY_TOKEN_RULE
    if len(token) < MIN_TOKEN_LENGTH or len(token) > MAX_TOKEN_LENGTH:
        return "a delivery token must be " + DELIVERY_TOKEN_RULE + "; got " + str(len(token)) + " characters"
    if not all(character in TOKEN_CHARACTERS for character in token):
        return "a delivery token must be " + DELIVERY_TOKEN_RULE + "; got another character (not shown)"
    return None


def accepted_tokens(tokens: Union[str, Iterable[str]]) -> Tuple[str, ...]:
    """Checks the tokens a receiver accepts and returns them as a tuple, in the order given.

    :param tokens: one token, or several (during a rotation, or for several webhooks)
    :raises ReceiverConfigError: ``invalid_tokens`` when there is none or one breaks the token rule (naming its index)
    """
    listed: List[Any] = [tokens] if isinstance(tokens, str) else list(tokens)
    if not listed:
        raise ReceiverConfigError(
            "invalid_tokens",
            "a receiver needs at least one delivery token to accept (" + DELIVERY_TOKEN_RULE + "): tokens is empty",
        )
    for index, token in enumerate(listed):
        problem = delivery_token_problem(token)
        if problem is not None:
            raise ReceiverConfigError("invalid_tokens", "tokens[" + str(index) + "]: " + problem)
    return tuple(listed)


def body_cap(max_body_bytes: Optional[int]) -> int:
    """Checks a body cap: a positive whole number of bytes, default ``DEFAULT_MAX_BODY_BYTES`` (1 MiB)."""
    if max_body_bytes is None:
        return DEFAULT_MAX_BODY_BYTES
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 1:
        raise ReceiverConfigError(
            "invalid_option",
            "max_body_bytes must be a positive whole number of bytes (default "
            + str(DEFAULT_MAX_BODY_BYTES)
            + "); got "
            + repr(max_body_bytes),
        )
    return max_body_bytes


def _query_values(query: str, name: str) -> List[str]:
    """The values of a query parameter, read as a browser's ``URLSearchParams`` reads them (``&`` separates pairs,
    ``+`` is a space, percent-escapes are UTF-8, a bad escape stays as written)."""
    values = []
    for pair in query.split("&"):
        if pair == "":
            continue
        key, _, value = pair.partition("=")
        if unquote_plus(key, errors="replace") == name:
            values.append(unquote_plus(value, errors="replace"))
    return values


def _match_token(given: Optional[str], tokens: Sequence[str]) -> int:
    """The index of the first accepted token equal to ``given``, or -1, in time that does not depend on where
    ``given`` differs: every accepted token is compared, each with ``hmac.compare_digest``."""
    found = -1
    offered = (given or "").encode("utf-8", "surrogatepass")
    for index, token in enumerate(tokens):
        equal = hmac.compare_digest(offered, token.encode("ascii"))
        if equal and given is not None and found == -1:
            found = index
    return found


@dataclass(frozen=True)
class Verification:
    """What ``verify_delivery`` found: ``verified``; ``token_index``, the accepted token's index (-1 when not
    verified); ``event``, the url's event when it names one known event once (else ``None``)."""

    verified: bool
    token_index: int
    event: Optional[str]


def verify_with(query: Union[str, bytes], tokens: Sequence[str]) -> Verification:
    """``verify_delivery`` with tokens already checked by ``accepted_tokens``."""
    text = query.decode("latin-1") if isinstance(query, bytes) else str(query)
    given = _query_values(text, DELIVERY_TOKEN_PARAM)
    index = _match_token(given[0] if len(given) == 1 else None, tokens)
    if index == -1:
        return Verification(False, -1, None)
    events = _query_values(text, DELIVERY_EVENT_PARAM)
    event = events[0] if len(events) == 1 and events[0] in EVENT_RECORD else None
    return Verification(True, index, event)


def verify_delivery(query: Union[str, bytes], tokens: Union[str, Iterable[str]]) -> Verification:
    """Verifies a delivery by its url's query: exactly one ``helpdesk_token`` parameter, equal to one of the accepted
    tokens, compared in constant time. Never raises for any query.

    :param query: the url's query without ``?`` (WSGI's ``QUERY_STRING``, ASGI's ``query_string``)
    :param tokens: the accepted tokens: one, or several during a rotation
    :returns: a ``Verification``
    :raises ReceiverConfigError: for the accepted tokens only, as ``accepted_tokens``
    """
    return verify_with(query, accepted_tokens(tokens))


@dataclass(frozen=True)
class Refusal:
    """A refused delivery: its status and the JSON body to answer with (``body()``)."""

    status: int
    error: str
    message: str
    field: Optional[str] = None

    def body(self) -> bytes:
        """The JSON body: ``{"error", "message"}``, and ``"field"`` for ``invalid_record``."""
        shown = {"error": self.error, "message": self.message}
        if self.field is not None:
            shown["field"] = self.field
        return json.dumps(shown, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def refused(code: str) -> Refusal:
    """The refusal of a code, with its status and fixed message."""
    status, message = REFUSALS[code]
    return Refusal(status, code, message)


@dataclass(frozen=True)
class Accepted:
    """An accepted delivery: answer 204 once it is handled."""

    delivery: Delivery
    token_index: int
    status: int = ACCEPTED_STATUS


Reception = Union[Accepted, Refusal]


@dataclass(frozen=True)
class Admitted:
    """What the method and the url said, before the body is read."""

    token_index: int
    event: Optional[str]


def admit(method: str, query: Union[str, bytes], tokens: Sequence[str]) -> Union[Admitted, Refusal]:
    """The checks that need no body: the method (405) and the token (401)."""
    if method != "POST":
        return refused("method_not_allowed")
    verification = verify_with(query, tokens)
    if not verification.verified:
        return refused("unauthorized")
    return Admitted(verification.token_index, verification.event)


def declared_too_large(content_length: Optional[str], cap: int) -> Optional[Refusal]:
    """A declared Content-Length over the cap (413); a missing or unreadable one is left to the reading."""
    if content_length is None:
        return None
    text = content_length.strip(" \t")
    if not text.isdigit() or not text.isascii():
        return None
    return refused("too_large") if int(text) > cap else None


def is_json_content_type(content_type: Optional[str]) -> bool:
    """Whether a Content-Type names JSON: absent or empty, ``application/json``, or a ``+json`` media type (RFC 6839
    §3.1); parameters are ignored. As receiver/nodejs/refusals.ts ``isJsonContentType``."""
    if content_type is None:
        return True
    media_type = content_type.split(";", 1)[0].strip(" \t").lower()
    if media_type == "" and ";" not in content_type:
        return True
    kind, slash, subtype = media_type.partition("/")
    if not slash or kind == "" or "/" in subtype or " " in media_type or "\t" in media_type:
        return False
    return (kind == "application" and subtype == "json") or (len(subtype) > 5 and subtype.endswith("+json"))


def _refuse_constant(name: str) -> Any:
    raise ValueError("not JSON: " + name)


def _nests_too_deep(value: Any) -> bool:
    """Whether a parsed value nests deeper than ``MAX_JSON_DEPTH`` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > MAX_JSON_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_body(admitted: Admitted, content_type: Optional[str], body: bytes) -> Reception:
    """The checks on the whole body: the content (415), the event (400) and the record (400, naming the field)."""
    if not is_json_content_type(content_type):
        return refused("not_json")
    try:
        # NaN and Infinity are Python's, not JSON's (RFC 8259 §6): refused, as JavaScript's and Go's parsers do.
        value = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return refused("not_json")
    if _nests_too_deep(value):
        return refused("not_json")
    if admitted.event is None:
        return refused("unknown_event")
    try:
        return Accepted(parse_delivery(admitted.event, value), admitted.token_index)
    except DeliveryParseError as error:
        status, _ = REFUSALS["invalid_record"]
        return Refusal(status, "invalid_record", str(error), error.field)


def receive_delivery(
    method: str,
    query: Union[str, bytes],
    content_type: Optional[str],
    body: bytes,
    tokens: Union[str, Iterable[str]],
    max_body_bytes: Optional[int] = None,
) -> Reception:
    """Receives one delivery whose body is already read. Checks, in this order: method (405), token (401), size
    (413), content (415), event (400 ``unknown_event``), record (400 ``invalid_record``, naming the field).

    :returns: ``Accepted(delivery, token_index)``, or a ``Refusal`` (``status``, ``error``, ``message``, ``field``)
    :raises ReceiverConfigError: when the tokens or the cap are not valid (never for anything of the request)
    """
    checked = accepted_tokens(tokens)
    cap = body_cap(max_body_bytes)
    admitted = admit(method, query, checked)
    if isinstance(admitted, Refusal):
        return admitted
    if len(body) > cap:
        return refused("too_large")
    return parse_body(admitted, content_type, body)
