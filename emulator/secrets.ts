/**
 * Random tokens, identifiers and hashes used by the emulator.
 */
import { createHash, randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

/**
 * A random opaque token: `bytes` random bytes (crypto.randomBytes), base64url without padding.
 * 32 bytes give 256 bits, above the 128 bits RFC 6749 §10.10 asks for.
 */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** An opaque identifier: `prefix` + `length` random lowercase base32 characters, e.g. `wh_k3j5...` (16 chars). */
export function randomId(prefix: string, length = 16): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const byte of bytes) out += BASE32[byte & 31];
  return out;
}

/** SHA-256 of a UTF-8 string, base64url. Tokens and codes are stored only as this hash. */
export function sha256(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

/** Constant-time string comparison (compares SHA-256 digests, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash("sha256").update(a, "utf8").digest();
  const db = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(da, db);
}

/** Hashes a password with scrypt (a light cost; this is a local emulator): `scrypt$<salt>$<hash>`, base64url parts. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 1024 });
  return `scrypt$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Checks `password` against a {@link hashPassword} value in constant time. Returns false for malformed hashes. */
export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = scryptSync(password, Buffer.from(salt, "base64url"), expected.length || 32, { N: 1024 });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
