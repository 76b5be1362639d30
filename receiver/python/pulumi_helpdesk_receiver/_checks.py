"""The checks the generated record builders (``records.py``) are made of, and the errors of parsing a delivery.

Each check follows what the TypeScript kit's schemas (zod 4, kernel/record-schemas.ts) accept, so that the three
kits accept the same bodies: a string is a ``str``; a boolean a ``bool``; an integer a JSON number with no fraction
within the bounds the schema gives (JavaScript reads ``1.0`` and ``1e2`` as integers, and so does this); a map any
JSON object; an object a JSON object with its listed keys present (others are kept). A failure names the dotted
path of the field, as zod does (``links.state.href``; ``""`` for the body itself).
"""

import json
from typing import Any, Callable, Dict, FrozenSet, Optional, TypeVar

T = TypeVar("T")


class RecordError(Exception):
    """A field that breaks its record's schema: ``field`` is its dotted path, ``message`` what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class DeliveryParseError(ValueError):
    """Raised by ``parse_delivery`` when the event is unknown or the body breaks its event's record.

    ``event`` is the event's name as given, ``field`` the dotted path of the first failing field (``""`` for the body
    itself or an unknown event); ``str(error)`` names the event, the record and the field, e.g.
    ``ticket_opened delivery is not a valid Ticket: field "links.state.href": expected string, got number``.
    """

    def __init__(self, message: str, event: str, field: str) -> None:
        super().__init__(message)
        self.event = event
        self.field = field


def json_type(value: Any) -> str:
    """The JSON type of a parsed value, as a message names it: null, boolean, number, string, array or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def at(path: str, key: str) -> str:
    """The dotted path of ``key`` inside the object at ``path`` (``""`` is the body)."""
    return key if path == "" else path + "." + key


def _expected(what: str, value: Any, path: str, nullable: bool) -> RecordError:
    return RecordError(path, "expected " + what + (" or null" if nullable else "") + ", got " + json_type(value))


def obj(value: Any, path: str) -> Dict[str, Any]:
    """``value`` as a JSON object, or a ``RecordError`` at ``path``."""
    if not isinstance(value, dict):
        raise _expected("object", value, path, False)
    return value


def member(o: Dict[str, Any], key: str, path: str) -> Any:
    """The value of a key the record requires (any value, null included), or a ``RecordError`` naming it missing."""
    if key not in o:
        raise RecordError(at(path, key), "missing")
    return o[key]


def string(value: Any, path: str, nullable: bool = False) -> Any:
    """A JSON string (or null, when ``nullable``)."""
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise _expected("string", value, path, nullable)
    return value


def boolean(value: Any, path: str, nullable: bool = False) -> Any:
    """A JSON boolean (or null, when ``nullable``)."""
    if value is None and nullable:
        return None
    if not isinstance(value, bool):
        raise _expected("boolean", value, path, nullable)
    return value


def integer(value: Any, path: str, minimum: int, maximum: int, nullable: bool = False) -> Any:
    """A JSON number with no fraction within ``[minimum, maximum]`` (or null, when ``nullable``), as an ``int``.

    JavaScript reads every JSON number as a double: ``1.0`` and ``1e2`` are integers there, and so they are here
    (``json.loads`` makes them floats); ``1e400`` is infinite there and here, so not an integer.
    """
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _expected("integer", value, path, nullable)
    if isinstance(value, float):
        if not value.is_integer():
            raise RecordError(path, "expected integer, got a number with a fraction or out of range")
        value = int(value)
    if value < minimum or value > maximum:
        raise RecordError(path, "expected integer from " + str(minimum) + " to " + str(maximum))
    return value


def mapping(value: Any, path: str, nullable: bool = False) -> Any:
    """A JSON object of any values (or null, when ``nullable``)."""
    if value is None and nullable:
        return None
    if not isinstance(value, dict):
        raise _expected("object", value, path, nullable)
    return value


def nested(build: Callable[[Any, str], T], value: Any, path: str, nullable: bool = False) -> Optional[T]:
    """A nested record object, built by ``build`` (or null, when ``nullable``)."""
    if value is None and nullable:
        return None
    return build(value, path)


def extra(o: Dict[str, Any], keys: FrozenSet[str]) -> Dict[str, Any]:
    """The fields of ``o`` the schema does not list."""
    return {key: value for key, value in o.items() if key not in keys}


def unknown_event(event: Any) -> DeliveryParseError:
    """The error of an event that is not one of docs/helpdesk-api.md §6's names."""
    shown = json.dumps(event) if isinstance(event, str) else type(event).__name__
    return DeliveryParseError("unknown webhook event " + shown + " (docs/helpdesk-api.md §6 lists 14 names)", str(event), "")


def invalid_record(event: str, record: str, error: RecordError) -> DeliveryParseError:
    """The error of a body that breaks the record of its event, naming the first failing field."""
    where = "the body" if error.field == "" else "field " + json.dumps(error.field)
    return DeliveryParseError(
        event + " delivery is not a valid " + record + ": " + where + ": " + error.message, event, error.field
    )
