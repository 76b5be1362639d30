/** The `webhooks` table: registered webhooks (docs/helpdesk-api.md §2.1, §4.3, §4.4), each owned by one account. */
import type { WebhookEvent } from "../../kernel/events.js";
import { randomId } from "../secrets.js";
import type { StoredWebhook } from "../types.js";
import { conditions, type StoreDatabase } from "./database.js";
import { insertWebhook, WEBHOOK_COLUMNS, webhookOf } from "./tables.js";

/** The webhooks. */
export class Webhooks {
  /** @param database the store's shared handle */
  constructor(private readonly database: StoreDatabase) {}

  /**
   * Creates an `active` webhook owned by `account`, with a new id (`wh_...`) and `createdAt` from the store's clock.
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  create(account: string, event: WebhookEvent, url: string): StoredWebhook {
    const webhook: StoredWebhook = {
      id: randomId("wh_"),
      event,
      url,
      state: "active",
      account,
      createdAt: new Date(this.database.now()).toISOString(),
    };
    this.database.write(() => insertWebhook(this.database.db, webhook));
    return webhook;
  }

  /** Deletes the webhook when it exists and belongs to `account`; returns whether it did. */
  delete(account: string, id: string): boolean {
    return (
      this.database.write(() =>
        this.database.change("DELETE FROM webhooks WHERE id = ? AND account = ?", id, account),
      ) > 0
    );
  }

  /** Webhooks in creation order, optionally of one account and/or one event. */
  list(filter: { account?: string; event?: WebhookEvent } = {}): StoredWebhook[] {
    const { where, values } = conditions({ account: filter.account, event: filter.event });
    return this.database.all(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks${where} ORDER BY seq`, ...values).map(webhookOf);
  }
}
