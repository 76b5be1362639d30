"""Help-desk webhooks on two help desks, in Python.

- The default provider reads the stack's ``helpdesk:*`` config, as ``pulumi-helpdesk login --stack <stack>`` writes it.
- The explicit provider ``euHelpdesk`` takes its settings from the stack's ``eu:*`` config, as
  ``pulumi-helpdesk login --stack <stack> --namespace eu`` writes it; the secret ones stay secrets.
"""
import pulumi
import pulumi_helpdesk as helpdesk

receivers = pulumi.Config().get("receiverBaseUrl") or "https://hooks.example.test"

# A webhook of the help desk that `pulumi-helpdesk login` signed in to (the default provider).
tickets_opened = helpdesk.Webhook(
    "ticketsOpened",
    event=helpdesk.WebhookEvent.TICKET_OPENED,
    url=f"{receivers}/tickets/opened",
)

# The second help desk: an explicit provider with the `eu:*` settings.
eu = pulumi.Config("eu")
eu_helpdesk = helpdesk.Provider(
    "euHelpdesk",
    base_url=eu.require("baseUrl"),
    access_token=eu.require_secret("accessToken"),
    refresh_token=eu.get_secret("refreshToken"),
    client_id=eu.get("clientId"),
    client_secret=eu.get_secret("clientSecret"),
    token_expires_at=eu.get("tokenExpiresAt"),
)

eu_customer_replied = helpdesk.Webhook(
    "euCustomerReplied",
    event=helpdesk.WebhookEvent.CUSTOMER_REPLIED,
    url=f"{receivers}/eu/replies",
    opts=pulumi.ResourceOptions(provider=eu_helpdesk),
)

pulumi.export("ticketsOpenedId", tickets_opened.id)
pulumi.export("euCustomerRepliedId", eu_customer_replied.id)
pulumi.export("euCustomerRepliedState", eu_customer_replied.state)
