/**
 * The `clients` table: OAuth clients registered in advance (docs/helpdesk-api.md §5.2), their secrets kept as SHA-256 hashes
 * (secrets.ts), so the data file holds nothing a caller could replay.
 */
import { safeEqual, sha256 } from "../secrets.js";
import type { EmulatorClient } from "../types.js";
import type { StoreDatabase } from "./database.js";
import { CLIENT_COLUMNS, clientOf, putClient, type StoredClient } from "./tables.js";

/** The registered OAuth clients. */
export class Clients {
  /** @param database the store's shared handle */
  constructor(private readonly database: StoreDatabase) {}

  /** Registers or replaces an OAuth client (the secret is hashed); replacing keeps its place. */
  upsert(client: EmulatorClient): void {
    const stored = {
      clientId: client.clientId,
      secretHash: sha256(client.clientSecret),
      redirectUri: client.redirectUri,
      name: client.name ?? client.clientId,
    };
    this.database.write(() => putClient(this.database.db, stored));
  }

  /** The client with this id, or `undefined`. */
  find(clientId: string): StoredClient | undefined {
    const values = this.database.one(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE client_id = ?`, clientId);
    return values && clientOf(values);
  }

  /** Whether `secret` is the client's secret, compared in constant time (RFC 6749 §2.3.1, §10.1). */
  secretMatches(client: StoredClient, secret: string): boolean {
    return safeEqual(sha256(secret), client.secretHash);
  }
}
