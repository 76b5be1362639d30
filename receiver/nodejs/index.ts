/**
 * The TypeScript receiver kit (issue 44): receives help-desk webhook deliveries in a service that has no Pulumi in
 * it. The help desk signs nothing (docs/helpdesk-api.md §5, §6); a webhook declared with a delivery token is
 * registered at a url whose query carries the token and the event (kernel/delivery-token.ts), and this kit accepts a
 * POST only when that token is one it was given, then hands over the body as the record of the event, typed.
 *
 * - {@link verifyDelivery}: the token check alone (constant-time; several tokens for a rotation).
 * - {@link receiveDelivery}: every check on a request already read, `{ status, delivery? | refusal? }`.
 * - {@link createNodeHandler}: a Node.js `http` listener (and Express route handler); {@link createFetchHandler}: a
 *   Web-standard `Request -> Promise<Response>` handler for serverless and edge runtimes.
 * - {@link DeliveryRouter}: typed listeners by event, `router.on("ticket_opened", ...)`.
 * - The records' schemas and types (`Ticket`, `Customer`, `Message`, `Agent`, `Delivery`) and `parseDelivery`, from
 *   their home, kernel/record-schemas.ts.
 *
 * Its only dependency is zod; it loads no `node:` module (the Node.js handler uses `node:http`'s types only).
 */

export { DELIVERY_EVENT_PARAM, DELIVERY_TOKEN_PARAM, DELIVERY_TOKEN_RULE } from "../../kernel/delivery-token.js";
export { PulumiHelpdeskError } from "../../kernel/errors.js";
export { EVENTS, isWebhookEvent, type WebhookEvent } from "../../kernel/events.js";
export {
  Agent,
  Customer,
  type Delivery,
  DeliveryParseError,
  EVENT_RECORD,
  type EventsCarrying,
  Link,
  Message,
  parseDelivery,
  RECORD_SCHEMAS,
  type RecordKind,
  Ticket,
} from "../../kernel/record-schemas.js";
export { type DeliveryContext, type DeliveryListener, type DeliveryOf, DeliveryRouter } from "./dispatch.js";
export { createFetchHandler, type FetchDeliveryHandler } from "./fetch.js";
export type { ReceiverOptions } from "./handler.js";
export { createNodeHandler, type NodeDeliveryHandler } from "./node.js";
export {
  type Accepted,
  type DeliveryRequest,
  type Reception,
  type Refused,
  receiveDelivery,
} from "./receive.js";
export {
  ACCEPTED_STATUS,
  DEFAULT_MAX_BODY_BYTES,
  isJsonContentType,
  MAX_JSON_DEPTH,
  REFUSALS,
  type Refusal,
  type RefusalCode,
} from "./refusals.js";
export {
  type AcceptedTokens,
  acceptedTokens,
  ReceiverConfigError,
  type Verification,
  verifyDelivery,
} from "./verify.js";
