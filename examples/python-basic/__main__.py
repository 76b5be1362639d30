"""The basic example in Python: route help-desk events to the services that act on them.

Four webhooks on the help desk that ``pulumi-helpdesk login --stack <stack>`` signed the stack in to (the default
provider, which reads the stack's ``helpdesk:*`` config). See README.md.
"""
import pulumi
import pulumi_helpdesk as helpdesk

config = pulumi.Config("example")
# Where the receivers live; override with `pulumi config set example:receiverBaseUrl https://...`.
receivers = config.get("receiverBaseUrl") or "https://hooks.example.com"

# Each webhook: its name in the stack, the event it subscribes to, and the path of the service that acts on it.
ROUTES = [
    ("ticket-started", helpdesk.WebhookEvent.TICKET_STARTED, "triage"),
    ("ticket-priority-changed", helpdesk.WebhookEvent.TICKET_PRIORITY_CHANGED, "escalations"),
    ("customer-added", helpdesk.WebhookEvent.CUSTOMER_ADDED, "crm/customers"),
    ("customer-replied", helpdesk.WebhookEvent.CUSTOMER_REPLIED, "chatops/replies"),
]

hooks = [helpdesk.Webhook(name, event=event, url=f"{receivers}/{path}") for name, event, path in ROUTES]

# The registered webhooks: service id, event, url and state of each.
pulumi.export("webhooks", [{"id": hook.id, "event": hook.event, "url": hook.url, "state": hook.state} for hook in hooks])
