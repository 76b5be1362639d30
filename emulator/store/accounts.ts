/**
 * The `accounts` table: the help desk's users, who sign in on the consent page and the web page and own webhooks.
 * Passwords are kept as scrypt hashes (secrets.ts). The first account (in registration order) is the default one.
 */
import { hashPassword, verifyPassword } from "../secrets.js";
import type { EmulatorAccount } from "../types.js";
import type { StoreDatabase } from "./database.js";
import { putAccount } from "./tables.js";

/** The accounts. */
export class Accounts {
  /** @param database the store's shared handle */
  constructor(private readonly database: StoreDatabase) {}

  /** The stored password hash of an account, or `undefined`. */
  private passwordHash(username: string): string | undefined {
    return this.database.one("SELECT password_hash FROM accounts WHERE username = ?", username)?.[0] as
      | string
      | undefined;
  }

  /**
   * Registers or replaces an account (the password is hashed). An account whose stored hash already matches is left
   * alone: scrypt salts every hash, so rewriting it at each start would change the file for nothing.
   */
  upsert(account: EmulatorAccount): void {
    const existing = this.passwordHash(account.username);
    if (existing !== undefined && verifyPassword(account.password, existing)) return;
    const stored = { username: account.username, passwordHash: hashPassword(account.password) };
    this.database.write(() => putAccount(this.database.db, stored));
  }

  /** Whether an account with this username exists. */
  has(username: string): boolean {
    return this.database.one("SELECT 1 FROM accounts WHERE username = ?", username) !== undefined;
  }

  /** Usernames of all accounts, in registration order. */
  names(): string[] {
    return this.database.all("SELECT username FROM accounts ORDER BY seq").map(([username]) => username as string);
  }

  /** Returns the username when the credentials are right, else `undefined` (in similar time for unknown users). */
  authenticate(username: string, password: string): string | undefined {
    const hash = this.passwordHash(username);
    if (hash === undefined) {
      verifyPassword(password, hashPassword("timing")); // similar work for unknown users
      return undefined;
    }
    return verifyPassword(password, hash) ? username : undefined;
  }
}
