/**
 * A receiver built with the TypeScript kit, for tests/receiver/kits.test.ts: `node typescript.ts node|fetch`. It
 * takes the accepted tokens from the environment (`RECEIVER_TOKENS`, comma-separated), listens on 127.0.0.1 at a free
 * port, prints `listening <port>`, and prints `delivered <json>` for each accepted delivery (tests/receiver/support/
 * summary.ts); its handler throws on a record with the field `fail_the_handler`. `node` serves `createNodeHandler`
 * with `node:http`; `fetch` serves `createFetchHandler` with `@hono/node-server`, a server of Web-standard handlers.
 * The kit is the build's (dist/), as a service would install it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type * as Kit from "../../../receiver/nodejs/index.js";
import { failsTheHandler, summarize } from "../support/summary.ts";

const kit = (await import(new URL("../../../dist/receiver/nodejs/index.js", import.meta.url).href)) as typeof Kit;
const mode = process.argv[2];
const tokens = (process.env.RECEIVER_TOKENS ?? "").split(",");

const onDelivery = (delivery: Kit.Delivery, context: Kit.DeliveryContext): void => {
  if (failsTheHandler(delivery)) throw new Error("the handler under test fails on fail_the_handler");
  console.log(`delivered ${JSON.stringify(summarize(delivery, context.tokenIndex))}`);
};

if (mode === "node") {
  const server = createServer(kit.createNodeHandler({ tokens, onDelivery }));
  server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as AddressInfo).port}`));
} else if (mode === "fetch") {
  const { serve } = await import("@hono/node-server");
  serve({ fetch: kit.createFetchHandler({ tokens, onDelivery }), hostname: "127.0.0.1", port: 0 }, (info) =>
    console.log(`listening ${info.port}`),
  );
} else {
  console.error("usage: node typescript.ts node|fetch");
  process.exit(2);
}
