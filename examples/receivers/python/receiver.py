"""A receiver of help-desk deliveries built with the Python kit (standard library only).

It accepts a POST only when the url carries one of the delivery tokens it is given (``HELPDESK_DELIVERY_TOKENS``,
comma-separated: several during a rotation), and prints one line per delivery, read from the record typed by its
event. Run: ``PORT=8000 python3 receiver.py``
"""
import os

from pulumi_helpdesk_receiver import (
    AgentDelivery,
    CustomerDelivery,
    Delivery,
    DeliveryContext,
    MessageDelivery,
    TicketDelivery,
    make_wsgi_app,
)
from pulumi_helpdesk_receiver.wsgi import make_server


def describe(delivery: Delivery) -> str:
    if isinstance(delivery, TicketDelivery):
        return f"ticket #{delivery.record.number}"
    if isinstance(delivery, CustomerDelivery):
        return f"customer {delivery.record.first_name}"
    if isinstance(delivery, AgentDelivery):
        return f"agent {delivery.record.first_name}"
    if isinstance(delivery, MessageDelivery):
        return f"message note={'true' if delivery.record.note else 'false'}"
    raise TypeError(delivery)


def on_delivery(delivery: Delivery, context: DeliveryContext) -> None:
    print(f"{delivery.event} {describe(delivery)}", flush=True)


app = make_wsgi_app(tokens=os.environ.get("HELPDESK_DELIVERY_TOKENS", "").split(","), on_delivery=on_delivery)

if __name__ == "__main__":
    port = int(os.environ.get("PORT", "8000"))
    server = make_server("127.0.0.1", port, app)
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.serve_forever()
