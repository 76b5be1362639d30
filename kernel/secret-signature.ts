/**
 * How the Pulumi engine marks a secret property value on the wire (to a provider that accepts secrets, and to a policy
 * pack's analyzer): the object `{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": v}`.
 * Source: pulumi/pulumi `sdk/go/common/resource/plugin/rpc.go` (MarshalPropertyValue) and `@pulumi/pulumi`
 * `runtime/rpc.js` (`specialSigKey`, `specialSecretSig`). Written out here rather than read from `@pulumi/pulumi`,
 * whose index takes most of a second to load (the plugin and the analyzer must start fast); a test
 * (`tests/release/constants.test.ts`) checks they equal the SDK's.
 */

/** The signature key of a wrapped special value (`@pulumi/pulumi` `runtime.specialSigKey`). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** The signature of a secret (`@pulumi/pulumi` `runtime.specialSecretSig`). */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
