/**
 * The examples with a README, and what tests/examples/readmes.test.ts needs to know of each besides its README: the
 * tools it needs, whether Pulumi downloads the plugin for it, what its help desks hold once deployed.
 */
import { expect } from "vitest";
import { CLIENT_SETTING_NAMES } from "../../cli/shared/settings.js";
import { SETTINGS } from "../../kernel/settings.js";

/** A webhook as an emulator holds it and the examples' outputs list it. */
export interface Webhook {
  id: string;
  event: string;
  url: string;
  state: string;
}

/** What the test needs to know of an example besides its README. */
export interface ExampleSpec {
  /** The folder name under examples/. */
  name: string;
  /** The language hosts to put on PATH. */
  hosts: string[];
  /** The example runs on Node.js: PATH gets node, npm and npx. */
  node?: boolean;
  python?: boolean;
  go?: boolean;
  java?: boolean;
  /** Whether Pulumi downloads the native provider's plugin (every example but the dynamic provider's). */
  plugin: boolean;
  /**
   * What each help desk (the emulators in the README's order) must hold once the README deployed, from the stack's
   * outputs.
   *
   * @param outputs `pulumi stack output --json`
   */
  deployed(outputs: Record<string, unknown>): Webhook[][];
  /** How long the example may take, in milliseconds. */
  timeout: number;
}

/** The basic examples' four webhooks (examples/basic/index.ts, examples/python-basic/__main__.py), in order. */
const BASIC_WEBHOOKS = [
  { event: "ticket_started", url: "https://hooks.example.com/triage" },
  { event: "ticket_priority_changed", url: "https://hooks.example.com/escalations" },
  { event: "customer_added", url: "https://hooks.example.com/crm/customers" },
  { event: "customer_replied", url: "https://hooks.example.com/chatops/replies" },
];

/** The basic examples: their output `webhooks` lists the four, which the one help desk holds. */
function basicDeployed(outputs: Record<string, unknown>): Webhook[][] {
  const listed = outputs.webhooks as Webhook[];
  expect(listed.map(({ event, url, state }) => ({ event, url, state }))).toEqual(
    BASIC_WEBHOOKS.map((hook) => ({ ...hook, state: "active" })),
  );
  return [listed];
}

/** The two-desk examples: one webhook on each help desk, their ids in the outputs. */
function twoDesksDeployed(outputs: Record<string, unknown>): Webhook[][] {
  return [
    [
      {
        id: String(outputs.ticketsOpenedId),
        event: "ticket_opened",
        url: "https://hooks.example.test/tickets/opened",
        state: "active",
      },
    ],
    [
      {
        id: String(outputs.euCustomerRepliedId),
        event: "customer_replied",
        url: "https://hooks.example.test/eu/replies",
        state: "active",
      },
    ],
  ];
}

export const MINUTE = 60_000;

/** Every example with a README, and what the test needs to know of it. */
export const EXAMPLE_SPECS: ExampleSpec[] = [
  {
    name: "basic",
    hosts: ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"],
    node: true,
    plugin: false,
    deployed: basicDeployed,
    timeout: 8 * MINUTE,
  },
  {
    name: "typescript",
    hosts: ["pulumi-language-nodejs"],
    node: true,
    plugin: true,
    deployed: twoDesksDeployed,
    timeout: 8 * MINUTE,
  },
  {
    name: "python-basic",
    hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
    python: true,
    plugin: true,
    deployed: basicDeployed,
    timeout: 6 * MINUTE,
  },
  {
    name: "python",
    hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
    python: true,
    plugin: true,
    deployed: twoDesksDeployed,
    timeout: 6 * MINUTE,
  },
  { name: "yaml", hosts: ["pulumi-language-yaml"], plugin: true, deployed: twoDesksDeployed, timeout: 5 * MINUTE },
  {
    name: "java",
    hosts: ["pulumi-language-java"],
    java: true,
    plugin: true,
    deployed: twoDesksDeployed,
    timeout: 10 * MINUTE,
  },
  { name: "go", hosts: [], go: true, plugin: true, deployed: twoDesksDeployed, timeout: 15 * MINUTE },
];

/** The environment variables `pulumi-helpdesk login` reads its settings from (kernel/settings.ts), in its order. */
export const LOGIN_VARIABLES: readonly string[] = CLIENT_SETTING_NAMES.map((name) => SETTINGS[name].env);

/**
 * The variables the test gives values to when a README names them in an untested block: the release folder, the
 * passphrase, the plugin mirror, the source folder of the SDKs without a release file, the second help desk's base
 * URL, and the login settings (the emulator's).
 */
export const SUPPLIED_VARIABLES: ReadonlySet<string> = new Set([
  "HELPDESK_RELEASE",
  "PULUMI_CONFIG_PASSPHRASE",
  "PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES",
  "HELPDESK_SOURCE",
  "EU_HELPDESK_BASE_URL",
  ...LOGIN_VARIABLES,
]);
