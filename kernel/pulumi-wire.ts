/**
 * The string the Pulumi engine puts in place of a value that is not known yet during preview (another resource's
 * output, say): `pulumi.runtime.unknownValue` in `@pulumi/pulumi` (`runtime/rpc.js`), `UnknownStringValue` in
 * pulumi/pulumi `sdk/go/common/resource/plugin/rpc.go`. Both front ends receive it; `check` lets it through, and the
 * real value is checked again at `up`. Written out here rather than read from `@pulumi/pulumi`, so that the provider
 * core does not load the Pulumi SDK (the native plugin's start time); `tests/unit/unknown.test.ts` holds it equal to
 * the SDK's.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
