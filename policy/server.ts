/**
 * The gRPC server of Pulumi's `pulumirpc.Analyzer` service (pulumi/pulumi `proto/pulumi/analyzer.proto`, v3.259) for
 * the `helpdesk` policy pack, on a unary gRPC server of node:http2 (`rpc/unary-server.ts`, which says why not grpc-js)
 * with the messages shipped in `@pulumi/pulumi/proto/` (`./proto.ts`):
 * what the release executable serves as `pulumi-analyzer-helpdesk` (`./analyzer.ts`). It serves the table of
 * `./policies.ts` and responds as `@pulumi/policy` 1.21.0's server (`server.js`, `protoutil.js`) responds for the same
 * table (the folder form, `./pack.ts`); tests/policy/parity.test.ts holds the two equal.
 *
 * Why not `@pulumi/policy`'s server: it loads the Pulumi SDK (`@pulumi/pulumi`, for assets in `deserialize.js`), which
 * takes most of a second to start; it deserializes every resource's properties again for each policy; and it responds to
 * `Remediate`, which the engine sends for every resource one at a time on its step generator's path before going on
 * (pulumi/pulumi v3.259 `pkg/resource/deploy/step_generator.go`), only after deserializing the whole resource. A pack
 * without remediations has nothing to say there, so this server responds to it at once, without reading the request: an
 * empty `RemediateResponse`, or, while the config sets a policy to `remediate`, the same "not applicable" list
 * `@pulumi/policy` gives (none of these policies remediates), encoded once per `Configure`.
 *
 * Methods the v3.259 engine calls (`pkg/resource/plugin/analyzer_plugin.go`): Handshake, ConfigureStack,
 * GetAnalyzerInfo, GetPluginInfo, Configure (only when a config is given), Remediate and Analyze (per resource),
 * AnalyzeStack (once, at the end), Cancel. As with `@pulumi/policy`:
 *
 * - a policy's enforcement level is the config's, else its own; `disabled` skips it; `remediate` reports as `mandatory`;
 * - a violation's message is the policy's description, a new line and the reason; it names the pack and its version;
 *   a resource policy's violation carries no URN (the engine attributes it to the resource), a stack policy's the
 *   URN of the resource it is about;
 * - a policy not applicable to a resource (an input unknown during preview) is listed with its reason;
 * - `Configure` replaces the whole config. Here the config is read once per `Configure` (each policy's `prepare`),
 *   not once per resource and policy.
 *
 * Differences, none visible through the engine: `GetPluginInfo` gives this package's version (`@pulumi/policy` gives
 * its own, 1.21.0); a property is deserialised only when a policy reads it (secrets unwrapped, however deep; assets and
 * archives stay their wire objects, which no policy reads), so a malformed asset elsewhere in a resource is not an
 * error. No property value is ever logged or put in an error message.
 *
 * The port is loopback and unauthenticated, as every Pulumi plugin's is. The analyzer reaches no credential and no
 * network: it judges the properties it is sent.
 */

import { messageOf } from "../kernel/errors.js";
import { POLICY_PACK } from "../kernel/names.js";
import { packageVersion } from "../kernel/package-version.js";
import { SECRET_SIG, SIG_KEY } from "../kernel/pulumi-wire.js";
import { decodeMessage } from "../rpc/protobuf.js";
import { serveUnary, type UnaryMethod, type UnaryServer } from "../rpc/unary-server.js";
import { PULUMI_MAX_MESSAGE_BYTES } from "../rpc/wire.js";
import {
  type EnforcementLevel,
  PACK_ENFORCEMENT_LEVEL,
  POLICIES,
  type Policy,
  type PolicyConfigProperties,
  type PolicyResource,
} from "./policies.js";
import {
  ANALYZER_PATHS,
  type AnalyzeDiagnostic,
  type AnalyzeRequest,
  type AnalyzerMethod,
  type AnalyzerResource,
  type AnalyzeStackRequest,
  analyzerPb,
  type ConfigureAnalyzerRequest,
  emptyPb,
  pluginPb,
  type Struct,
  structPb,
} from "./proto.js";

/** `analyzer.proto`'s `EnforcementLevel` numbers of the levels' names. */
const LEVEL_NUMBERS: Readonly<Record<EnforcementLevel, number>> = {
  advisory: analyzerPb.EnforcementLevel.ADVISORY,
  mandatory: analyzerPb.EnforcementLevel.MANDATORY,
  remediate: analyzerPb.EnforcementLevel.REMEDIATE,
  disabled: analyzerPb.EnforcementLevel.DISABLED,
};

/**
 * The name of an `EnforcementLevel` number.
 *
 * @throws Error naming the number and the levels there are, for a number `analyzer.proto` does not define
 */
function levelNamed(level: number): EnforcementLevel {
  const name = (Object.keys(LEVEL_NUMBERS) as EnforcementLevel[]).find((key) => LEVEL_NUMBERS[key] === level);
  if (name === undefined)
    throw new Error(`unknown enforcement level ${level}: the levels are ${Object.keys(LEVEL_NUMBERS).join(", ")}`);
  return name;
}

/** One policy as configured: its enforcement level, its config properties and what its `prepare` made of them. */
interface ConfiguredPolicy {
  readonly policy: Policy;
  readonly level: EnforcementLevel;
  readonly properties: PolicyConfigProperties;
  readonly prepared: unknown;
}

/**
 * Reads the pack's config: each policy's level (the config's, else its own, else the pack's) and properties.
 *
 * @param config per policy name, its level and properties (from `Configure`); empty for the policies' own settings
 */
function configure(
  config: ReadonlyMap<string, { level: EnforcementLevel; properties: PolicyConfigProperties }>,
): ConfiguredPolicy[] {
  return POLICIES.map((policy) => {
    const given = config.get(policy.name);
    const properties = given?.properties ?? {};
    return {
      policy,
      level: given?.level ?? policy.enforcementLevel ?? PACK_ENFORCEMENT_LEVEL,
      properties,
      prepared: policy.kind === "resource" ? policy.prepare(properties) : undefined,
    };
  });
}

/**
 * A property value as a policy reads it, with every secret unwrapped however deep (as `@pulumi/policy`
 * `deserialize.js` does); the unknown sentinel stays.
 */
function revealed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revealed);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  if (record[SIG_KEY] === SECRET_SIG) return revealed(record.value);
  return Object.fromEntries(Object.entries(record).map(([key, inner]) => [key, revealed(inner)]));
}

/** A reader of a `Struct`'s properties, each deserialised when asked for. */
function reader(struct: Struct | undefined): (key: string) => unknown {
  const fields = struct?.getFieldsMap();
  return (key) => {
    const value = fields?.get(key);
    return value === undefined ? undefined : revealed(value.toJavaScript());
  };
}

/** A resource of a request, as the policies read it. */
function policyResource(message: AnalyzeRequest | AnalyzerResource): PolicyResource {
  const provider = message.getProvider();
  return {
    type: message.getType(),
    name: message.getName(),
    urn: message.getUrn(),
    property: reader(message.getProperties()),
    provider: provider && { urn: provider.getUrn(), property: reader(provider.getProperties()) },
  };
}

/** The diagnostics and not-applicable policies of one Analyze or AnalyzeStack. */
class Findings {
  private readonly diagnostics: AnalyzeDiagnostic[] = [];
  private readonly notApplicable: InstanceType<typeof analyzerPb.PolicyNotApplicable>[] = [];

  /** @param version the pack's version, which each diagnostic names */
  constructor(private readonly version: string) {}

  /** A violation of `policy` at `level` (remediate reports as mandatory), about `urn` when given. */
  violation(policy: Policy, level: EnforcementLevel, reason: string, urn?: string): void {
    const diagnostic = new analyzerPb.AnalyzeDiagnostic();
    diagnostic.setPolicyname(policy.name);
    diagnostic.setPolicypackname(POLICY_PACK);
    diagnostic.setPolicypackversion(this.version);
    diagnostic.setDescription(policy.description);
    diagnostic.setMessage(`${policy.description}\n${reason}`);
    diagnostic.setEnforcementlevel(LEVEL_NUMBERS[level === "remediate" ? "mandatory" : level] as never);
    if (urn) diagnostic.setUrn(urn);
    this.diagnostics.push(diagnostic);
  }

  /** `policy` does not apply, and why. */
  notApplicableFor(policy: Policy, reason: string): void {
    this.notApplicable.push(new analyzerPb.PolicyNotApplicable().setPolicyName(policy.name).setReason(reason));
  }

  /** @returns the `AnalyzeResponse`: the diagnostics in order, and the not-applicable list when there is one (as `@pulumi/policy` sets it) */
  response(): InstanceType<typeof analyzerPb.AnalyzeResponse> {
    const response = new analyzerPb.AnalyzeResponse().setDiagnosticsList(this.diagnostics);
    if (this.notApplicable.length > 0) response.setNotApplicableList(this.notApplicable);
    return response;
  }
}

/**
 * Runs one policy, turning what it throws (a defect) into the error `@pulumi/policy` gives.
 *
 * @throws Error `Error validating resource with policy '<name>' from policy pack '<pack>@v<version>': <message>`
 */
function running<T>(policy: Policy, version: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new Error(
      `Error validating resource with policy '${policy.name}' from policy pack '${POLICY_PACK}@v${version}':\n${messageOf(error)}`,
      { cause: error },
    );
  }
}

/** `GetAnalyzerInfo`'s response: the pack, its version and each policy with its type, level and config schema. */
function analyzerInfo(version: string): InstanceType<typeof analyzerPb.AnalyzerInfo> {
  const info = new analyzerPb.AnalyzerInfo().setName(POLICY_PACK).setVersion(version).setSupportsconfig(true);
  info.setPoliciesList(
    POLICIES.map((policy) => {
      const policyInfo = new analyzerPb.PolicyInfo()
        .setPolicyType(
          policy.kind === "resource"
            ? analyzerPb.PolicyType.POLICY_TYPE_RESOURCE
            : analyzerPb.PolicyType.POLICY_TYPE_STACK,
        )
        .setName(policy.name)
        .setDescription(policy.description)
        .setEnforcementlevel(LEVEL_NUMBERS[policy.enforcementLevel ?? PACK_ENFORCEMENT_LEVEL] as never);
      if (policy.configSchema) {
        const schema = new analyzerPb.PolicyConfigSchema().setProperties(
          structPb.Struct.fromJavaScript(
            policy.configSchema.properties as Parameters<typeof structPb.Struct.fromJavaScript>[0],
          ),
        );
        if (policy.configSchema.required) schema.setRequiredList([...policy.configSchema.required]);
        policyInfo.setConfigschema(schema);
      }
      return policyInfo;
    }),
  );
  return info;
}

/** The config of a `Configure` request, per policy name. */
function configOf(
  request: ConfigureAnalyzerRequest,
): Map<string, { level: EnforcementLevel; properties: PolicyConfigProperties }> {
  const config = new Map<string, { level: EnforcementLevel; properties: PolicyConfigProperties }>();
  request.getPolicyconfigMap().forEach((policyConfig, name) => {
    config.set(name, {
      level: levelNamed(policyConfig.getEnforcementlevel()),
      properties: (policyConfig.getProperties()?.toJavaScript() ?? {}) as PolicyConfigProperties,
    });
  });
  return config;
}

/**
 * The encoded `RemediateResponse` for a config: empty, or one "not applicable" entry per resource policy set to
 * `remediate` (none of them remediates), as `@pulumi/policy` responds.
 */
function remediateResponse(configured: readonly ConfiguredPolicy[]): Uint8Array {
  const response = new analyzerPb.RemediateResponse();
  const notApplicable = configured
    .filter(({ policy, level }) => level === "remediate" && policy.kind === "resource")
    .map(({ policy }) =>
      new analyzerPb.PolicyNotApplicable()
        .setPolicyName(policy.name)
        .setReason("Policy does not implement remediateResource"),
    );
  if (notApplicable.length > 0) response.setNotApplicableList(notApplicable);
  return response.serializeBinary();
}

/** What each `Analyzer` method returns, from the request's encoded message to the response's. */
type AnalyzerMethods = Readonly<Record<AnalyzerMethod, UnaryMethod>>;

/**
 * Builds the `Analyzer` methods of the pack. Requests are decoded only where a method reads them (`Configure`,
 * `Analyze`, `AnalyzeStack`); `Remediate` is served with bytes encoded once per `Configure` (see the module's
 * comment).
 *
 * @returns each method, by its name in the generated declarations ({@link ANALYZER_PATHS} gives its path)
 */
export function analyzerMethods(): AnalyzerMethods {
  const version = packageVersion();
  let configured = configure(new Map());
  let remediation = remediateResponse(configured);
  const empty = new emptyPb.Empty().serializeBinary();

  return {
    handshake: () => new analyzerPb.AnalyzerHandshakeResponse().serializeBinary(),
    configureStack: () => new analyzerPb.AnalyzerStackConfigureResponse().serializeBinary(),
    getAnalyzerInfo: () => analyzerInfo(version).serializeBinary(),
    getPluginInfo: () => new pluginPb.PluginInfo().setVersion(version).serializeBinary(),
    cancel: () => empty,

    configure: (bytes) => {
      configured = configure(configOf(decodeMessage(analyzerPb.ConfigureAnalyzerRequest, bytes)));
      remediation = remediateResponse(configured);
      return empty;
    },

    remediate: () => remediation,

    analyze: (bytes) => {
      const resource = policyResource(decodeMessage(analyzerPb.AnalyzeRequest, bytes));
      const findings = new Findings(version);
      for (const { policy, level, prepared } of configured) {
        if (level === "disabled" || policy.kind !== "resource") continue;
        const verdict = running(policy, version, () => policy.validateResource(resource, prepared));
        if (verdict === undefined) continue;
        if ("notApplicable" in verdict) findings.notApplicableFor(policy, verdict.notApplicable);
        else findings.violation(policy, level, verdict.violation);
      }
      return findings.response().serializeBinary();
    },

    analyzeStack: (bytes) => {
      const request: AnalyzeStackRequest = decodeMessage(analyzerPb.AnalyzeStackRequest, bytes);
      const resources = request.getResourcesList().map(policyResource);
      const findings = new Findings(version);
      for (const { policy, level, properties } of configured) {
        if (level === "disabled" || policy.kind !== "stack") continue;
        for (const { message, urn } of running(policy, version, () => policy.validateStack(resources, properties)))
          findings.violation(policy, level, message, urn);
      }
      return findings.response().serializeBinary();
    },
  };
}

/**
 * The methods whose request may be larger than gRPC's 4 MiB default, up to the 400 MiB of `@pulumi/policy`'s server
 * (`rpc/wire.ts` PULUMI_MAX_MESSAGE_BYTES): `AnalyzeStack` carries every resource of the stack, `Analyze` and
 * `Remediate` one resource with all its properties. The others carry a config or nothing, and keep grpc-js's 4 MiB.
 */
const LARGE_REQUESTS: readonly AnalyzerMethod[] = ["analyze", "analyzeStack", "remediate"];

/**
 * Starts the analyzer's server on 127.0.0.1 at a free port.
 *
 * @returns the port (the analyzer prints it on stdout, as Pulumi plugins do) and the server
 * @throws Error when no port can be bound
 */
export function serveAnalyzer(): Promise<UnaryServer> {
  const methods = analyzerMethods();
  const paths = Object.keys(ANALYZER_PATHS) as AnalyzerMethod[];
  return serveUnary(new Map(paths.map((method) => [ANALYZER_PATHS[method], methods[method]])), {
    maxRequestBytes: new Map(LARGE_REQUESTS.map((method) => [ANALYZER_PATHS[method], PULUMI_MAX_MESSAGE_BYTES])),
  });
}
