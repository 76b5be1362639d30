// Help-desk webhooks on two help desks, in TypeScript with the native provider (see Pulumi.yaml).
import * as pulumi from "@pulumi/pulumi";
import { Provider, Webhook } from "@pulumi-helpdesk/helpdesk";

const receivers = new pulumi.Config().get("receiverBaseUrl") ?? "https://hooks.example.test";

// A webhook of the help desk that `pulumi-helpdesk login` signed in to (the default provider).
const ticketsOpened = new Webhook("ticketsOpened", { event: "ticket_opened", url: `${receivers}/tickets/opened` });

// The second help desk: an explicit provider with the `eu:*` settings (`pulumi-helpdesk login --namespace eu`).
const eu = new pulumi.Config("eu");
const euHelpdesk = new Provider("euHelpdesk", {
  baseUrl: eu.require("baseUrl"),
  accessToken: eu.requireSecret("accessToken"),
  refreshToken: eu.getSecret("refreshToken"),
  clientId: eu.get("clientId"),
  clientSecret: eu.getSecret("clientSecret"),
  tokenExpiresAt: eu.get("tokenExpiresAt"),
});

const euCustomerReplied = new Webhook(
  "euCustomerReplied",
  { event: "customer_replied", url: `${receivers}/eu/replies` },
  { provider: euHelpdesk },
);

export const ticketsOpenedId = ticketsOpened.id;
export const euCustomerRepliedId = euCustomerReplied.id;
export const euCustomerRepliedState = euCustomerReplied.state;
