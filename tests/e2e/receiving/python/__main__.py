"""The Python program of tests/e2e/receiving.test.ts, through the native SDK: one webhook per event with a minted
delivery token for the Python receiver (``receiving:pythonReceiverUrl``), and two for the Go receiver
(``receiving:goReceiverUrl``). Exports the tokens (secrets)."""
import pulumi
import pulumi_helpdesk as helpdesk

config = pulumi.Config("receiving")
python_receiver = config.require("pythonReceiverUrl")
go_receiver = config.require("goReceiverUrl")

python_tokens = {}
for event in helpdesk.WebhookEvent:
    hook = helpdesk.Webhook(f"py-{event.value}", event=event, url=f"{python_receiver}/hooks", use_delivery_token=True)
    python_tokens[event.value] = hook.delivery_token

go_tokens = {}
for event in (helpdesk.WebhookEvent.TICKET_CLOSED, helpdesk.WebhookEvent.AGENT_INVITED):
    hook = helpdesk.Webhook(f"go-{event.value}", event=event, url=f"{go_receiver}/hooks", use_delivery_token=True)
    go_tokens[event.value] = hook.delivery_token

pulumi.export("pythonTokens", python_tokens)
pulumi.export("goTokens", go_tokens)
