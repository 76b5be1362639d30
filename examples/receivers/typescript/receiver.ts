// A receiver of help-desk deliveries built with the TypeScript kit: it accepts a POST only when the url carries one
// of the delivery tokens it is given (HELPDESK_DELIVERY_TOKENS, comma-separated: several during a rotation), and
// prints one line per delivery, read from the record typed by its event. Run: PORT=8000 node receiver.ts
import { createServer } from "node:http";
import { createNodeHandler, type Delivery } from "@pulumi-helpdesk/receiver";

function describe(delivery: Delivery): string {
  switch (delivery.kind) {
    case "ticket":
      return `ticket #${delivery.record.number}`;
    case "customer":
      return `customer ${delivery.record.first_name}`;
    case "agent":
      return `agent ${delivery.record.first_name}`;
    case "message":
      return `message note=${delivery.record.note}`;
  }
}

const handler = createNodeHandler({
  tokens: (process.env.HELPDESK_DELIVERY_TOKENS ?? "").split(","),
  onDelivery: (delivery) => console.log(`${delivery.event} ${describe(delivery)}`),
});
const port = Number(process.env.PORT ?? 8000);
createServer(handler).listen(port, "127.0.0.1", () => console.log(`listening on 127.0.0.1:${port}`));
