/**
 * Minting a delivery token (`kernel/delivery-token.ts`): {@link MINTED_TOKEN_PREFIX} and {@link MINTED_TOKEN_BYTES}
 * bytes from the operating system's CSPRNG (`node:crypto` `randomBytes`), in unpadded base64url (RFC 4648 §5): every
 * character is one a url carries as it is (RFC 3986 §2.3).
 */
import { randomBytes } from "node:crypto";
import { MINTED_TOKEN_BYTES, MINTED_TOKEN_PREFIX } from "../../kernel/delivery-token.js";

/**
 * @returns a new delivery token, e.g. `hdt_` and 43 base64url characters (256 random bits)
 */
export function mintDeliveryToken(): string {
  return `${MINTED_TOKEN_PREFIX}${randomBytes(MINTED_TOKEN_BYTES).toString("base64url")}`;
}
