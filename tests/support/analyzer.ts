/**
 * Test support: the policy pack's analyzer as the Pulumi engine speaks to it, over gRPC with the Analyzer service's own
 * stubs (`@pulumi/pulumi/proto/analyzer_grpc_pb.js`): start it (the built CLI under the analyzer's name, the release
 * executable, or the folder form's `dist/policy/pack.js` on `@pulumi/policy`) with the address of a stand-in engine
 * that answers (the analyzer ends once its engine stops answering: rpc/engine-watch.ts), configure it, and ask it
 * about resources and stacks.
 */

import * as grpc from "@grpc/grpc-js";
import analyzerGrpcModule from "@pulumi/pulumi/proto/analyzer_grpc_pb.js";
import type * as AnalyzerPb from "@pulumi/pulumi/proto/analyzer_pb.js";
import analyzerPbModule from "@pulumi/pulumi/proto/analyzer_pb.js";
import { required } from "../../kernel/required.js";
import { emptyPb, type PropertyMap, structPb } from "../../provider/native/proto.js";
import { serveUnary } from "../../rpc/unary-server.js";
import { startProcess } from "../../scripts/lib/processes.ts";

const analyzerPb = analyzerPbModule;

/** A violation as the analyzer reports it. */
export interface Diagnostic {
  policy: string;
  message: string;
  /** `advisory`, `mandatory` or `disabled` */
  level: string;
  urn: string;
}

/** A resource as the engine describes it to the analyzer. */
export interface AnalyzedResource {
  type: string;
  name: string;
  properties: PropertyMap;
  /** its provider: type, name and properties (the URN is made from them) */
  provider?: { type: string; name: string; properties: PropertyMap };
}

/** A running analyzer and a client of it. */
export interface RunningAnalyzer {
  /** how long it took to print its port, in milliseconds */
  startMs: number;
  /** what it wrote on stderr */
  stderr(): string;
  /** Sets the policies' config, as `--policy-pack-config` does: `{ "<policy>": { enforcementLevel?, ...properties } }`. */
  configure(config: Record<string, Record<string, unknown>>): Promise<void>;
  /** `GetAnalyzerInfo`: the pack's name, version and policies. */
  info(): Promise<{ name: string; version: string; policies: string[] }>;
  /** `Analyze` of one resource. */
  analyze(resource: AnalyzedResource): Promise<Diagnostic[]>;
  /** `AnalyzeStack` of the given resources. */
  analyzeStack(resources: AnalyzedResource[]): Promise<Diagnostic[]>;
  /** The whole responses, every field, as the generated messages' `toObject()` give them (for comparing two analyzers). */
  raw: {
    /** `GetAnalyzerInfo` */
    info(): Promise<AnalyzerPb.AnalyzerInfo.AsObject>;
    /** `Analyze` of one resource */
    analyze(resource: AnalyzedResource): Promise<AnalyzerPb.AnalyzeResponse.AsObject>;
    /** `AnalyzeStack` of the given resources */
    analyzeStack(resources: AnalyzedResource[]): Promise<AnalyzerPb.AnalyzeResponse.AsObject>;
    /** `Remediate` of one resource */
    remediate(resource: AnalyzedResource): Promise<AnalyzerPb.RemediateResponse.AsObject>;
  };
  close(): Promise<void>;
}

const LEVELS = ["advisory", "mandatory", "disabled", "remediate"];

/** The URN the engine would give a resource of the test stack. */
export function urnOf(type: string, name: string): string {
  return `urn:pulumi:test::policy::${type}::${name}`;
}

/** A unary call as a promise. */
function ask<T>(call: (done: (error: grpc.ServiceError | null, response?: T) => void) => unknown): Promise<T> {
  return new Promise((resolve, reject) =>
    call((error, response) =>
      error ? reject(error) : resolve(required(response, "the response of a call that did not fail")),
    ),
  );
}

/** Fills a request or stack resource from a test's resource. */
function describeResource<
  M extends InstanceType<typeof analyzerPb.AnalyzeRequest> | InstanceType<typeof analyzerPb.AnalyzerResource>,
>(message: M, resource: AnalyzedResource): M {
  message.setType(resource.type);
  message.setName(resource.name);
  message.setUrn(urnOf(resource.type, resource.name));
  message.setProperties(
    structPb.Struct.fromJavaScript(resource.properties as Parameters<typeof structPb.Struct.fromJavaScript>[0]),
  );
  // The engine always sends the resource's options (`@pulumi/policy` refuses a request without them).
  message.setOptions(new analyzerPb.AnalyzerResourceOptions());
  if (resource.provider) {
    const provider = new analyzerPb.AnalyzerProviderResource();
    provider.setType(resource.provider.type);
    provider.setName(resource.provider.name);
    provider.setUrn(urnOf(resource.provider.type, resource.provider.name));
    provider.setProperties(
      structPb.Struct.fromJavaScript(
        resource.provider.properties as Parameters<typeof structPb.Struct.fromJavaScript>[0],
      ),
    );
    message.setProvider(provider);
  }
  return message;
}

/** The diagnostics of a response. */
function diagnosticsOf(response: InstanceType<typeof analyzerPb.AnalyzeResponse>): Diagnostic[] {
  return response.getDiagnosticsList().map((diagnostic) => ({
    policy: diagnostic.getPolicyname(),
    message: diagnostic.getMessage(),
    level: LEVELS[diagnostic.getEnforcementlevel()] ?? String(diagnostic.getEnforcementlevel()),
    urn: diagnostic.getUrn(),
  }));
}

/**
 * Starts an analyzer and connects to the port it prints.
 *
 * @param command the executable and its arguments before the engine's address, e.g. `[process.execPath, "dist/bin/release.js", "pulumi-analyzer-helpdesk"]`
 * @param env its environment
 */
export async function startAnalyzer(
  command: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningAnalyzer> {
  // The engine's stand-in: a gRPC server of no method, whose UNIMPLEMENTED to the health check means it is there.
  const engine = await serveUnary(new Map());
  const began = performance.now();
  const started = startProcess(
    required(command[0], "the analyzer's command"),
    [...command.slice(1), `127.0.0.1:${engine.port}`],
    {
      env,
    },
  );
  const [, line = ""] = await started.waitFor("stdout", /^(.*)\n/, "the analyzer's port", 30_000);
  const startMs = performance.now() - began;
  const client = new analyzerGrpcModule.AnalyzerClient(`127.0.0.1:${line.trim()}`, grpc.credentials.createInsecure());
  const analyzeStack = (resources: AnalyzedResource[]): Promise<InstanceType<typeof analyzerPb.AnalyzeResponse>> => {
    const request = new analyzerPb.AnalyzeStackRequest();
    request.setResourcesList(
      resources.map((resource) => describeResource(new analyzerPb.AnalyzerResource(), resource)),
    );
    return ask((done) => client.analyzeStack(request, done));
  };
  return {
    startMs,
    stderr: started.stderr,
    async configure(config) {
      const request = new analyzerPb.ConfigureAnalyzerRequest();
      for (const [policy, { enforcementLevel, ...properties }] of Object.entries(config)) {
        const policyConfig = new analyzerPb.PolicyConfig();
        policyConfig.setEnforcementlevel(LEVELS.indexOf(String(enforcementLevel ?? "mandatory")) as never);
        policyConfig.setProperties(
          structPb.Struct.fromJavaScript(properties as Parameters<typeof structPb.Struct.fromJavaScript>[0]),
        );
        request.getPolicyconfigMap().set(policy, policyConfig);
      }
      await ask((done) => client.configure(request, done));
    },
    async info() {
      const info = await ask<InstanceType<typeof analyzerPb.AnalyzerInfo>>((done) =>
        client.getAnalyzerInfo(new emptyPb.Empty(), done),
      );
      return {
        name: info.getName(),
        version: info.getVersion(),
        policies: info.getPoliciesList().map((policy) => policy.getName()),
      };
    },
    async analyze(resource) {
      const response = await ask<InstanceType<typeof analyzerPb.AnalyzeResponse>>((done) =>
        client.analyze(describeResource(new analyzerPb.AnalyzeRequest(), resource), done),
      );
      return diagnosticsOf(response);
    },
    async analyzeStack(resources) {
      return diagnosticsOf(await analyzeStack(resources));
    },
    raw: {
      info: async () =>
        (
          await ask<InstanceType<typeof analyzerPb.AnalyzerInfo>>((done) =>
            client.getAnalyzerInfo(new emptyPb.Empty(), done),
          )
        ).toObject(),
      analyze: async (resource) =>
        (
          await ask<InstanceType<typeof analyzerPb.AnalyzeResponse>>((done) =>
            client.analyze(describeResource(new analyzerPb.AnalyzeRequest(), resource), done),
          )
        ).toObject(),
      analyzeStack: async (resources) => (await analyzeStack(resources)).toObject(),
      remediate: async (resource) =>
        (
          await ask<InstanceType<typeof analyzerPb.RemediateResponse>>((done) =>
            client.remediate(describeResource(new analyzerPb.AnalyzeRequest(), resource), done),
          )
        ).toObject(),
    },
    async close() {
      client.close();
      await started.stop();
      await engine.close();
    },
  };
}
