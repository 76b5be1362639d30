/**
 * Property values as the Pulumi engine sends them to a provider that accepts secrets (`acceptSecrets: true` in the
 * handshake): a secret is the object `{[SIG_KEY]: SECRET_SIG, value: v}`, and a value not known yet (preview) is the
 * string `UNKNOWN` (Pulumi's wire sentinels, `kernel/pulumi-wire.ts`). Source: pulumi/pulumi
 * `sdk/go/common/resource/plugin/rpc.go` (MarshalPropertyValue).
 */
import { SECRET_SIG, SIG_KEY, UNKNOWN } from "../../kernel/pulumi-wire.js";
import type { PropertyMap } from "./proto.js";

/** A secret as the engine wraps it. */
export interface WrappedSecret {
  [key: string]: unknown;
  value: unknown;
}

/**
 * @param value any property value
 * @returns true when `value` is a secret-wrapped value
 */
export function isSecret(value: unknown): value is WrappedSecret {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/**
 * Removes secret wrappers, however deep.
 *
 * @param value any property value
 * @returns the same value with every secret replaced by its plain value
 */
export function reveal(value: unknown): unknown {
  if (isSecret(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, reveal(inner)]));
  }
  return value;
}

/**
 * Wraps a value as a secret (once: a secret stays as it is).
 *
 * @param value a plain or already wrapped value
 */
export function asSecret(value: unknown): WrappedSecret {
  return isSecret(value) ? value : { [SIG_KEY]: SECRET_SIG, value };
}

/**
 * @param value any property value
 * @returns true when `value` is, or holds somewhere (inside secrets, arrays, objects), the unknown sentinel
 */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === "object" && value !== null) return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * The plain view of a property map plus which top-level keys were secret, so a result can be wrapped the same way.
 *
 * @param properties a property map from a request
 * @returns `plain`: the map without secret wrappers; `secretKeys`: the keys whose value was (or held) a secret
 */
export function unwrapProperties(properties: PropertyMap): { plain: PropertyMap; secretKeys: Set<string> } {
  const secretKeys = new Set<string>();
  for (const [key, value] of Object.entries(properties))
    if (JSON.stringify(value) !== JSON.stringify(reveal(value))) secretKeys.add(key);
  return { plain: reveal(properties) as PropertyMap, secretKeys };
}

/**
 * Wraps the given top-level keys of a plain property map as secrets (keys absent from the map are ignored).
 *
 * @param plain a map without secret wrappers
 * @param secretKeys the keys to wrap
 */
export function wrapSecrets(plain: PropertyMap, secretKeys: Iterable<string>): PropertyMap {
  const wrapped: PropertyMap = { ...plain };
  for (const key of secretKeys) if (key in wrapped && wrapped[key] !== undefined) wrapped[key] = asSecret(wrapped[key]);
  return wrapped;
}
