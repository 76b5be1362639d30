/**
 * Pulumi's wire sentinels: the values the engine and its state files give a special meaning, written out once here
 * rather than read from `@pulumi/pulumi`, so that the provider core, the native plugin, the policy pack and the CLI do
 * not load the Pulumi SDK for them (its index takes most of a second to load: the plugin's start time). Sources:
 * `@pulumi/pulumi` `runtime/rpc.js` (`unknownValue`, `specialSigKey`, `specialSecretSig`) and pulumi/pulumi
 * `sdk/go/common/resource/plugin/rpc.go` (`UnknownStringValue`, MarshalPropertyValue), `sdk/go/common/apitype`
 * (`SecretV1`). `tests/kernel/pulumi-wire.test.ts` holds every one equal to the SDK's.
 * @home Pulumi's wire sentinels: the unknown value, the secret signature, the state file's secret
 */

/**
 * The string the Pulumi engine puts in place of a value that is not known yet during preview (another resource's
 * output, say). Both provider front ends receive it; `check` lets it through, and the real value is checked again at
 * `up`.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The signature key of a wrapped special value (`@pulumi/pulumi` `runtime.specialSigKey`). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";

/**
 * The signature of a secret (`@pulumi/pulumi` `runtime.specialSecretSig`): on the wire a secret is the object
 * `{[SIG_KEY]: SECRET_SIG, value: v}` (to a provider that accepts secrets).
 */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/**
 * A secret in the form of a state file (pulumi/pulumi `sdk/go/common/apitype` `SecretV1`, read by `pulumi import`'s
 * `DeserializeProperties`): `{[SIG_KEY]: SECRET_SIG, plaintext: <the value as JSON>}`; the engine encrypts it into
 * the state as it imports.
 *
 * @param value the plain value
 * @returns the state file's form of the secret
 */
export function stateSecret(value: string): Record<string, string> {
  return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/**
 * The plain value of a property in a state file's form (`pulumi stack export --show-secrets`): the inverse of
 * {@link stateSecret} for a secret (`{[SIG_KEY]: SECRET_SIG, plaintext: <JSON text>}`, pulumi/pulumi `apitype.SecretV1`),
 * any other value as it is.
 *
 * @param value a property's value as the export has it
 * @returns the value, or undefined when a secret has no plaintext (an export without `--show-secrets`)
 * @throws SyntaxError when a secret's plaintext is not JSON (a state file no engine wrote)
 */
export function stateValue(value: unknown): unknown {
  if (typeof value !== "object" || value === null || (value as Record<string, unknown>)[SIG_KEY] !== SECRET_SIG)
    return value;
  const plaintext = (value as { plaintext?: unknown }).plaintext;
  return typeof plaintext === "string" ? (JSON.parse(plaintext) as unknown) : undefined;
}
