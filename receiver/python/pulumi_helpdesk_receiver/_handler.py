"""What the WSGI and ASGI apps share: their options, checked once when an app is made; the call of the service's
``on_delivery``; the typed dispatch by event (``DeliveryRouter``)."""

import inspect
import sys
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Optional, Union

from ._contract import EVENTS
from ._core import Accepted, ReceiverConfigError, Refusal, accepted_tokens, body_cap, refused
from .records import Delivery


@dataclass(frozen=True)
class DeliveryContext:
    """What a handler knows of an accepted delivery beside it: ``token_index``, which accepted token its url carried
    (during a rotation, which webhook sent it)."""

    token_index: int


#: A service's handler of accepted deliveries: ``(delivery, context)``; an ASGI app also awaits a coroutine.
OnDelivery = Callable[[Delivery, DeliveryContext], Any]
#: Told why a delivery is answered 500: ``(error, event)`` (``event`` ``None`` when unknown).
OnError = Callable[[BaseException, Optional[str]], Any]


def _print_error(error: BaseException, event: Optional[str]) -> None:
    """The default error reporter: one line on stderr with the event and the error (never anything of the url)."""
    print(
        "a " + (event + " " if event else "") + "delivery was answered 500: " + type(error).__name__ + ": " + str(error),
        file=sys.stderr,
    )


@dataclass(frozen=True)
class Receiver:
    """A receiver's options, checked."""

    tokens: tuple
    cap: int
    on_delivery: OnDelivery
    on_error: OnError

    def report(self, error: BaseException, event: Optional[str]) -> None:
        """Tells the error reporter why a delivery is answered 500; a reporter that raises changes nothing."""
        try:
            self.on_error(error, event)
        except Exception:  # noqa: BLE001 - a failing reporter must not change the answer
            pass

    def deliver(self, accepted: Accepted) -> Optional[Refusal]:
        """Runs ``on_delivery``: ``None`` when it returned (answer 204), the ``handler_failed`` refusal when it raised."""
        try:
            self.on_delivery(accepted.delivery, DeliveryContext(accepted.token_index))
            return None
        except Exception as error:  # noqa: BLE001 - the service's handler may raise anything
            self.report(error, accepted.delivery.event)
            return refused("handler_failed")

    async def deliver_async(self, accepted: Accepted) -> Optional[Refusal]:
        """``deliver``, awaiting ``on_delivery`` when it returns an awaitable."""
        try:
            result = self.on_delivery(accepted.delivery, DeliveryContext(accepted.token_index))
            if inspect.isawaitable(result):
                await result
            return None
        except Exception as error:  # noqa: BLE001 - the service's handler may raise anything
            self.report(error, accepted.delivery.event)
            return refused("handler_failed")


def receiver_of(
    tokens: Union[str, Iterable[str]],
    on_delivery: OnDelivery,
    max_body_bytes: Optional[int],
    on_error: Optional[OnError],
) -> Receiver:
    """Checks an app's options.

    :raises ReceiverConfigError: ``invalid_tokens`` (naming the token's index, never the token) or ``invalid_option``
    """
    checked = accepted_tokens(tokens)
    if not callable(on_delivery):
        raise ReceiverConfigError("invalid_option", "on_delivery must be callable: (delivery, context) -> None")
    if on_error is not None and not callable(on_error):
        raise ReceiverConfigError("invalid_option", "on_error must be callable: (error, event) -> None")
    return Receiver(checked, body_cap(max_body_bytes), on_delivery, on_error or _print_error)


class DeliveryRouter:
    """Routes each delivery to the handlers of its event, in the order they were added (as @octokit/webhooks'
    ``on("issues.opened")``). A handler that raises stops the delivery's dispatch and the app answers 500; a delivery
    of an event with no handler is accepted and handled by nothing. Pass ``router.dispatch`` (WSGI) or
    ``router.dispatch_async`` (ASGI, where handlers may be coroutines) as ``on_delivery``::

        router = DeliveryRouter()

        @router.on("ticket_opened")
        def opened(delivery: TicketDelivery, context: DeliveryContext) -> None:
            print(delivery.record.number)
    """

    def __init__(self) -> None:
        self._handlers: Dict[str, List[Callable[..., Any]]] = {}

    def on(self, *events: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """A decorator that adds a handler of one event or several.

        :raises ReceiverConfigError: ``invalid_option`` when a name is not an event of docs/helpdesk-api.md §6
        """
        for event in events:
            if event not in EVENTS:
                raise ReceiverConfigError(
                    "invalid_option", "on(" + repr(event) + "): not an event; the events are " + ", ".join(EVENTS)
                )
        if not events:
            raise ReceiverConfigError("invalid_option", "on(): name at least one event")

        def add(handler: Callable[..., Any]) -> Callable[..., Any]:
            for event in events:
                self._handlers.setdefault(event, []).append(handler)
            return handler

        return add

    def on_any(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """Adds a handler of every event (usable as a decorator)."""
        return self.on(*EVENTS)(handler)

    def dispatch(self, delivery: Delivery, context: DeliveryContext) -> None:
        """Calls the handlers of the delivery's event in turn (they must not be coroutines: see ``dispatch_async``)."""
        for handler in self._handlers.get(delivery.event, []):
            result = handler(delivery, context)
            if inspect.iscoroutine(result):
                result.close()  # never run: closed, so Python does not warn that it was never awaited
                raise TypeError("a coroutine handler needs the ASGI app: pass router.dispatch_async as on_delivery")

    async def dispatch_async(self, delivery: Delivery, context: DeliveryContext) -> None:
        """Calls and awaits the handlers of the delivery's event in turn."""
        for handler in self._handlers.get(delivery.event, []):
            result: Union[Awaitable[Any], Any] = handler(delivery, context)
            if inspect.isawaitable(result):
                await result
