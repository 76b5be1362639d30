/**
 * The shapes of Pulumi projects people add pulumi-helpdesk to, each as its own package.json, tsconfig.json and
 * program, set up like Pulumi's templates: the TypeScript template most existing projects were made from (CommonJS,
 * `moduleResolution: node`), today's template (`nodenext`, a CommonJS package) with an older and a newer TypeScript,
 * a CommonJS JavaScript program and an ES module program, all with the dynamic `Webhook`; and two programs of the
 * native provider plugin with two help desks: today's TypeScript template with `pulumi-helpdesk/native`, and Python
 * with the generated SDK the repository keeps in `sdk/python`.
 */
import { pythonProviderBlock, typescriptProviderBlock } from "../support/provider-programs.js";

/** One project shape: everything written into a fresh project directory before `npm install`. */
export interface ProjectShape {
  /** Short name, used for directories and test titles. */
  name: string;
  /** What this shape stands for, as the closing table shows it. */
  title: string;
  /** Whether the program is TypeScript (then Pulumi's TypeScript support, ts-node type-checking, runs it). */
  typescript: boolean;
  /** `dependencies` besides the tarball (the `@pulumi/pulumi` range is the program's own, as in its template). */
  dependencies: Record<string, string>;
  /** `devDependencies` (TypeScript, Node types). */
  devDependencies: Record<string, string>;
  /** Extra top-level package.json fields (`type`, `main`). */
  packageFields: Record<string, unknown>;
  /** Files to write, by relative path (the program, tsconfig.json). */
  files: Record<string, string>;
  /** Extra tsconfig files to type-check with `tsc --noEmit -p <file>` besides the one Pulumi uses. */
  extraTypeChecks: string[];
  /** Pulumi.yaml `runtime` (default `nodejs`). */
  runtime?: "nodejs" | "python";
  /** Lines appended to Pulumi.yaml (e.g. {@link PLUGIN_FROM_NODE_MODULES}). */
  pulumiYamlExtra?: string;
}

/** Events and urls the programs declare; the suite checks the emulator holds exactly these after `up`. */
export const DECLARED_WEBHOOKS = [
  { name: "opened", event: "ticket_opened", url: "https://hooks.example.test/helpdesk/opened", secret: false },
  {
    name: "replied",
    event: "customer_replied",
    url: "https://hooks.example.test/services/T0001/B0001/s3cr3tPath",
    secret: true,
  },
] as const;

const webhookLines = (indent = ""): string =>
  DECLARED_WEBHOOKS.map(
    (hook) =>
      `${indent}const ${hook.name} = new Webhook("${hook.name}", { event: "${hook.event}", url: ${hook.secret ? `pulumi.secret(${JSON.stringify(hook.url)})` : JSON.stringify(hook.url)} });`,
  ).join("\n");

const ids = `[${DECLARED_WEBHOOKS.map((hook) => `${hook.name}.id`).join(", ")}]`;

/** The TypeScript program (the same text for every TypeScript shape: what a user writes). */
const typescriptProgram = `import * as pulumi from "@pulumi/pulumi";
import { Webhook, type WebhookArgs } from "pulumi-helpdesk";

${webhookLines()}
const args: WebhookArgs = { event: "ticket_closed", url: "https://hooks.example.test/unused" };
export const ids = ${ids};
export const declaredEvent = args.event;
`;

/** tsconfig of Pulumi's TypeScript template before March 2026 (most existing projects). */
const legacyTsconfig = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

/** tsconfig of today's template: `nodenext` in a CommonJS package. */
const nodenextTsconfig = {
  compilerOptions: { ...legacyTsconfig.compilerOptions, module: "nodenext", moduleResolution: "nodenext" },
  files: ["index.ts"],
};

/** A bundler-resolution view of the same program, type-checked only (Pulumi does not run bundled programs). */
const bundlerTsconfig = {
  compilerOptions: { ...legacyTsconfig.compilerOptions, module: "preserve", moduleResolution: "bundler", noEmit: true },
  files: ["index.ts"],
};

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Every shape. `pulumiRange` is the `@pulumi/pulumi` range of the program's own package.json: `^3.113.0` as in the
 * templates (npm then picks the newest 3.x), or the oldest version pulumi-helpdesk supports for the floor shape.
 *
 * @param oldestPulumi the oldest supported `@pulumi/pulumi` version, e.g. `3.139.0` (from the package's peer range)
 */
export function projectShapes(oldestPulumi: string): ProjectShape[] {
  return [
    {
      name: "ts-commonjs-node10",
      title: `TypeScript, old template (commonjs, moduleResolution node, ts-node), @pulumi/pulumi ${oldestPulumi} (oldest supported)`,
      typescript: true,
      dependencies: { "@pulumi/pulumi": oldestPulumi },
      devDependencies: { "@types/node": "^22", typescript: "^5.0.0" },
      packageFields: { main: "index.ts" },
      files: { "index.ts": typescriptProgram, "tsconfig.json": json(legacyTsconfig) },
      extraTypeChecks: [],
    },
    {
      name: "ts-nodenext-5.7",
      title: "TypeScript 5.7, today's template (nodenext, CommonJS package, ts-node)",
      typescript: true,
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
      devDependencies: { "@types/node": "^22", typescript: "~5.7.0" },
      packageFields: { main: "index.ts" },
      files: { "index.ts": typescriptProgram, "tsconfig.json": json(nodenextTsconfig) },
      extraTypeChecks: [],
    },
    {
      name: "ts-nodenext-5.9",
      title: "TypeScript 5.9, today's template (nodenext, CommonJS package, ts-node); also bundler resolution",
      typescript: true,
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
      devDependencies: { "@types/node": "^22", typescript: "~5.9.0" },
      packageFields: { main: "index.ts" },
      files: {
        "index.ts": typescriptProgram,
        "tsconfig.json": json(nodenextTsconfig),
        "tsconfig.bundler.json": json(bundlerTsconfig),
      },
      extraTypeChecks: ["tsconfig.bundler.json"],
    },
    {
      name: "js-commonjs",
      title: "JavaScript, CommonJS (require)",
      typescript: false,
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
      devDependencies: {},
      packageFields: { main: "index.js" },
      files: {
        "index.js": `"use strict";
const pulumi = require("@pulumi/pulumi");
const { Webhook } = require("pulumi-helpdesk");

${webhookLines()}
exports.ids = ${ids};
`,
      },
      extraTypeChecks: [],
    },
    {
      name: "js-esm",
      title: 'JavaScript, ES modules ("type": "module")',
      typescript: false,
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
      devDependencies: {},
      packageFields: { type: "module", main: "index.js" },
      files: {
        "index.js": `import * as pulumi from "@pulumi/pulumi";
import { Webhook } from "pulumi-helpdesk";

${webhookLines()}
export const ids = ${ids};
`,
      },
      extraTypeChecks: [],
    },
  ];
}

/**
 * Pulumi.yaml lines that point Pulumi at the native plugin in the installed package, as the README tells users
 * (relative to the project directory).
 */
export const PLUGIN_FROM_NODE_MODULES = `plugins:
  providers:
    - name: helpdesk
      path: node_modules/pulumi-helpdesk/plugin
`;

/** Which help desk a native program's webhook is on: the default provider's (`helpdesk:*`) or the `eu:*` one's. */
export type Desk = "home" | "eu";

/**
 * The webhooks the native programs declare: one through the default provider, one (with a secret url) through the
 * explicit provider on the second help desk. The suite checks each emulator holds exactly its own after `up`.
 */
export const NATIVE_WEBHOOKS = [
  {
    name: "opened",
    desk: "home",
    event: "ticket_opened",
    url: "https://hooks.example.test/helpdesk/opened",
    secret: false,
  },
  {
    name: "euReplied",
    desk: "eu",
    event: "customer_replied",
    url: "https://hooks.example.test/services/T0001/B0002/eu5ecretPath",
    secret: true,
  },
] as const satisfies ReadonlyArray<{ name: string; desk: Desk; event: string; url: string; secret: boolean }>;

/** The native TypeScript program: what the README's "Several help desks in one program" shows a user. */
const nativeTypescriptProgram = `import * as pulumi from "@pulumi/pulumi";
import { Provider, Webhook, type ProviderArgs, type WebhookArgs } from "pulumi-helpdesk/native";

// The default provider reads the stack's helpdesk:* config (npx pulumi-helpdesk login).
const opened = new Webhook("opened", { event: "ticket_opened", url: ${JSON.stringify(NATIVE_WEBHOOKS[0].url)} });

// The second help desk: the eu:* config (npx pulumi-helpdesk login --namespace eu).
${typescriptProviderBlock({ resource: "eu", variable: "euHelpdesk", config: "eu", namespace: "eu", argsType: "ProviderArgs" }).join("\n")}
const repliedArgs: WebhookArgs = { event: "customer_replied", url: pulumi.secret(${JSON.stringify(NATIVE_WEBHOOKS[1].url)}) };
const euReplied = new Webhook("euReplied", repliedArgs, { provider: euHelpdesk });

export const ids = { home: [opened.id], eu: [euReplied.id] };
export const euRepliedState = euReplied.state;
`;

/** The same program in Python, with the generated SDK `pulumi_helpdesk`. */
const pythonProgram = `"""Two help desks through the native provider plugin, with the generated Python SDK."""
import pulumi
import pulumi_helpdesk as helpdesk

# The default provider reads the stack's helpdesk:* config (npx pulumi-helpdesk login).
opened = helpdesk.Webhook("opened", event=helpdesk.WebhookEvent.TICKET_OPENED, url=${JSON.stringify(NATIVE_WEBHOOKS[0].url)})

# The second help desk: the eu:* config (npx pulumi-helpdesk login --namespace eu).
${pythonProviderBlock({ resource: "eu", variable: "eu_helpdesk", config: "eu", namespace: "eu" }).join("\n")}
eu_replied = helpdesk.Webhook(
    "euReplied",
    event=helpdesk.WebhookEvent.CUSTOMER_REPLIED,
    url=pulumi.Output.secret(${JSON.stringify(NATIVE_WEBHOOKS[1].url)}),
    opts=pulumi.ResourceOptions(provider=eu_helpdesk),
)

pulumi.export("ids", {"home": [opened.id], "eu": [eu_replied.id]})
pulumi.export("euRepliedState", eu_replied.state)
`;

/**
 * The native-provider shapes: today's TypeScript template (nodenext, TypeScript 5.9, the newest `@pulumi/pulumi` 3.x)
 * with `pulumi-helpdesk/native`, and a Python program. Both name the plugin in Pulumi.yaml
 * ({@link PLUGIN_FROM_NODE_MODULES}); the Python one has the npm package only for the plugin and the CLI, and the
 * SDK from `sdk/python` (npm adds `@pulumi/pulumi`, its peer dependency, for the CLI).
 */
export function nativeShapes(): ProjectShape[] {
  return [
    {
      name: "ts-native",
      title:
        "TypeScript 5.9, today's template (nodenext, ts-node), native provider (pulumi-helpdesk/native), two help desks",
      typescript: true,
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
      devDependencies: { "@types/node": "^22", typescript: "~5.9.0" },
      packageFields: { main: "index.ts" },
      files: { "index.ts": nativeTypescriptProgram, "tsconfig.json": json(nodenextTsconfig) },
      extraTypeChecks: [],
      pulumiYamlExtra: PLUGIN_FROM_NODE_MODULES,
    },
    {
      name: "python-native",
      title: "Python (pulumi_helpdesk from sdk/python), native provider, two help desks",
      typescript: false,
      dependencies: {},
      devDependencies: {},
      packageFields: {},
      files: { "__main__.py": pythonProgram },
      extraTypeChecks: [],
      runtime: "python",
      pulumiYamlExtra: PLUGIN_FROM_NODE_MODULES,
    },
  ];
}
