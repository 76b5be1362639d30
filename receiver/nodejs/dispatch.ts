/**
 * Typed dispatch by event, after @octokit/webhooks' `on("issues.opened", handler)`: a listener registered for
 * `ticket_opened` receives a delivery whose record TypeScript knows is a Ticket (kernel/record-schemas.ts
 * `EVENT_RECORD`). A router's `dispatch` is what a handler's `onDelivery` calls.
 */
import { EVENTS, isWebhookEvent, type WebhookEvent } from "../../kernel/events.js";
import type { Delivery, EVENT_RECORD } from "../../kernel/record-schemas.js";
import { ReceiverConfigError } from "./verify.js";

/** What a handler knows of an accepted delivery beside the delivery itself. */
export interface DeliveryContext {
  /** Which accepted token the url carried: its index in the receiver's tokens (during a rotation, which webhook). */
  tokenIndex: number;
}

/**
 * The delivery of event `E`, its record typed: e.g. `DeliveryOf<"ticket_opened">` is
 * `{ event: "ticket_opened"; kind: "ticket"; record: Ticket }`.
 */
export type DeliveryOf<E extends WebhookEvent> = Extract<Delivery, { kind: (typeof EVENT_RECORD)[E] }> & { event: E };

/** A listener of the deliveries of the events `E`; it may be async (the delivery is answered once it settles). */
export type DeliveryListener<E extends WebhookEvent> = (
  delivery: DeliveryOf<E>,
  context: DeliveryContext,
) => void | Promise<void>;

/** A listener of every event's deliveries. */
export type AnyListener = (delivery: Delivery, context: DeliveryContext) => void | Promise<void>;

/**
 * Routes each delivery to the listeners of its event, in the order they were added, one after the other. A listener
 * that throws (or rejects) stops the delivery's dispatch and makes the handler answer 500. A delivery of an event with
 * no listener is accepted and handled by nothing.
 *
 * ```ts
 * const router = new DeliveryRouter()
 *   .on("ticket_opened", ({ record }) => console.log(record.number))
 *   .on(["agent_invited", "agent_archived"], ({ event, record }) => console.log(event, record.email));
 * http.createServer(createNodeHandler({ tokens, onDelivery: router.dispatch }));
 * ```
 */
export class DeliveryRouter {
  /** The listeners of each event; `on` typed each for its events, and `dispatch` calls it only with those. */
  private readonly listeners = new Map<WebhookEvent, AnyListener[]>();

  /**
   * Adds a listener for one event or several.
   *
   * @param events an event name of docs/helpdesk-api.md §6, or a list of them
   * @param listener called with each delivery of those events, typed by its event
   * @returns the router, to chain
   * @throws {ReceiverConfigError} `invalid_option` when a name is not an event (naming it: it is the caller's own
   *   string, never a token)
   */
  on<E extends WebhookEvent>(events: E | readonly E[], listener: DeliveryListener<E>): this {
    const names: readonly unknown[] = typeof events === "string" ? [events] : events;
    for (const name of names)
      if (!isWebhookEvent(name))
        throw new ReceiverConfigError(
          "invalid_option",
          `on(${JSON.stringify(name)}): not an event; the events are ${EVENTS.join(", ")}`,
        );
    for (const name of names as readonly E[]) {
      const list = this.listeners.get(name) ?? [];
      // Sound: this list is of `name`'s listeners, and `dispatch` calls them with deliveries of `name` only.
      list.push(listener as unknown as AnyListener);
      this.listeners.set(name, list);
    }
    return this;
  }

  /**
   * Adds a listener for every event.
   *
   * @param listener called with each delivery, of any event
   * @returns the router, to chain
   */
  onAny(listener: AnyListener): this {
    return this.on<WebhookEvent>(EVENTS, listener);
  }

  /**
   * Calls the listeners of a delivery's event in turn: pass it as a handler's `onDelivery` (it is bound).
   *
   * @param delivery an accepted delivery
   * @param context its token's index
   * @throws whatever a listener throws
   */
  readonly dispatch = async (delivery: Delivery, context: DeliveryContext): Promise<void> => {
    for (const listener of this.listeners.get(delivery.event) ?? []) await listener(delivery, context);
  };
}
