/**
 * `pulumi-helpdesk migrate`: moves every dynamic `Webhook` (`pulumi-nodejs:dynamic/helpdesk:Webhook`) of a stack to the
 * native `helpdesk:index:Webhook` with the same resource name, id, event and url, with no request to the help desk.
 * Pulumi cannot move a resource from one provider to another (a new type is a new URN: delete and create, which the
 * help desk would see as a new webhook with a new id; pulumi/pulumi#6399), so the move is done on the state:
 *
 * 1. The state is read with `pulumi stack export --show-secrets` (into this process's memory only: the urls are in it,
 *    secret or not). Every dynamic `Webhook` is checked first: its event and url by the one webhook rule
 *    (`kernel/webhook-rules.ts` `webhookProblems`), its name free among the native webhooks (the native one of the
 *    same name and id is one migrated before: skipped), no other resource depending on it; and the stack's
 *    `helpdesk:*` config by the settings table's collector (`kernel/settings.ts` `collectSettings`, the one the
 *    native provider's `CheckConfig` runs on the same values). Any problem ends the command with exit code 2 before
 *    anything changes.
 * 2. The urls go to the secret stack config `<project>:helpdeskWebhookUrls`, as `import` writes them
 *    (`../adopt/webhook-urls.ts`). A webhook with a delivery token keeps it: the native twin records the dynamic one's
 *    secret outputs `deliveryToken` and `registeredUrl` and its token inputs as they were (`useDeliveryToken`,
 *    `deliveryTokenRotation`; a `deliveryToken` of the user's own goes to `<project>:helpdeskDeliveryTokens`, a minted
 *    one stays minted), so the same declarations find no change and the help desk keeps the url it holds.
 * 3. The native webhooks are adopted by the `import` command's route (`../adopt/pulumi-import.ts` `runImport`: one
 *    `pulumi import --file`, inputs and outputs given, each url a secret, under the default provider, which reads the
 *    same `helpdesk:*` config as the dynamic `Webhook`), protected as Pulumi's import protects. A native URN differs from
 *    the dynamic one by its type, so both live in the state for a moment under the same name. If this fails, nothing
 *    is removed.
 * 4. The dynamic webhooks leave the state with `pulumi state delete` (never `destroy`: no delete reaches the help
 *    desk), with the `pulumi-nodejs` default provider when nothing else uses it (else the next preview would delete
 *    it). A rerun after a failure here skips step 3 for the webhooks adopted already and finishes the job.
 * 5. The declarations to replace the dynamic ones with are printed on stdout, in the stack's language.
 *
 * A dynamic `Webhook` inside a component is adopted at the top level of the stack under its own name (the printed
 * declarations declare it there); the README shows the `aliases` option that moves it back into a component.
 */
import { stackCommand } from "../../kernel/commands.js";
import { DEFAULT_CONFIG_NAMESPACE, stackConfigSettings } from "../../kernel/config.js";
import type { WebhookEvent } from "../../kernel/events.js";
import { DYNAMIC_WEBHOOK_TYPE, pluginDownloadUrlFor, WEBHOOK_TYPE } from "../../kernel/names.js";
import { PACKAGE_NAME, packageVersion } from "../../kernel/package-version.js";
import { stateValue } from "../../kernel/pulumi-wire.js";
import { collectSettings, SETTING_NAMES } from "../../kernel/settings.js";
import { webhookProblems } from "../../kernel/webhook-rules.js";
import { declarationLanguage, declarations } from "../adopt/declarations.js";
import {
  type AdoptedToken,
  type AdoptedWebhook,
  nameOf,
  runImport,
  type StateResource,
} from "../adopt/pulumi-import.js";
import { existingLists, placeUrls } from "../adopt/webhook-urls.js";
import { CliError, info, result, success, warn } from "../shared/output.js";
import {
  openStack,
  readProjectFacts,
  readStackConfigEntries,
  resolveStackRef,
  runPulumi,
  type StackRef,
} from "../shared/stack-config.js";

/** Options of `migrate`. */
export interface MigrateOptions {
  /** Stack name (default: the selected stack). */
  stack?: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** List what would move and change nothing. */
  dryRun?: boolean;
}

/** A resource of `pulumi stack export`'s deployment, with the fields migration reads (pulumi/pulumi `apitype.ResourceV3`). */
interface ExportedResource extends StateResource {
  outputs?: Record<string, unknown>;
  parent?: string;
  /** The provider reference: `<provider URN>::<provider id>`. */
  provider?: string;
  protect?: boolean;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  deletedWith?: string;
  /** A resource pending deletion (of a replacement that did not finish). */
  delete?: boolean;
}

/** A dynamic `Webhook` to move: the webhook `runImport` takes, and what its removal from the state needs. */
interface Move extends AdoptedWebhook {
  /** The dynamic webhook's URN. */
  urn: string;
  /** Adopted as a native webhook by an earlier run (its native twin of the same name and id is in the state). */
  adopted: boolean;
  /** Protected in the state (`pulumi state delete` then needs `--force`). */
  protect: boolean;
  /** The URN of its parent when that is not the stack: a component. */
  component: string | undefined;
}

/** The type token of a stack's root resource. */
const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";
/** The URNs given to one `pulumi state delete` run: a few hundred keep its command line far below the system's limit. */
const STATE_DELETE_BATCH = 500;

/**
 * Moves the stack's dynamic webhooks to the native provider (see the module's description).
 *
 * @param options the parsed flags
 * @throws CliError exit 2 when a webhook or the stack config is not fit to move (every problem listed, nothing
 *   changed), exit 1 when a `pulumi` command fails (a rerun finishes the job)
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  const ref = await resolveStackRef(options.stack, options.cwd);
  const stack = await openStack(ref, false);
  const project = await readProjectFacts(stack.workspace);
  const exported = JSON.parse(
    await runPulumi(["stack", "export", "--show-secrets", "--stack", ref.stackName], ref.workDir),
  ) as {
    deployment?: { resources?: ExportedResource[] };
  };
  const resources = (exported.deployment?.resources ?? []).filter((resource) => !resource.delete);
  const entries = await readStackConfigEntries(stack);
  const config = Object.fromEntries(Object.entries(entries).map(([key, entry]) => [key, entry.value]));
  const moves = plannedMoves(resources, ref.stackName, configProblems(config));
  // The lists are checked before anything changes, the dry run too: a plain-text or gapped one is refused (exit 2).
  const lists = existingLists(project.name, entries, ref.stackName);

  if (moves.length === 0) {
    success(`nothing to migrate: stack "${ref.stackName}" has no dynamic Webhook`);
    return;
  }
  const fresh = moves.filter((move) => !move.adopted);
  if (options.dryRun) {
    info(
      `would move ${moves.length} dynamic Webhook${plural(moves.length)} of stack "${ref.stackName}" to ${WEBHOOK_TYPE} (dry run: nothing changed):`,
    );
    for (const move of moves)
      result(
        `${move.name}\t${move.id}\t${move.event}${move.adopted ? "\t(adopted before; only leaves the state)" : ""}`,
      );
    return;
  }

  // Every url gets a place in the config list: the one it has from an earlier run or an import, else a new one.
  const declared = await placeUrls(stack, ref, lists, moves);

  const version = packageVersion();
  if (fresh.length < moves.length)
    info(
      `skipped ${moves.length - fresh.length} webhook${plural(moves.length - fresh.length)} adopted as native before`,
    );
  if (fresh.length > 0) {
    info(
      `adopting ${fresh.length} webhook${plural(fresh.length)} as ${WEBHOOK_TYPE} into stack "${ref.stackName}" with pulumi import (protected)`,
    );
    await runImport(fresh, {
      stackName: ref.stackName,
      workDir: ref.workDir,
      provider: undefined,
      version,
      protect: true,
    });
  }
  info(
    `removing the ${moves.length} dynamic Webhook${plural(moves.length)} from the state with pulumi state delete (the help desk keeps them)`,
  );
  try {
    await removeFromState(
      [...moves.map((move) => move.urn), ...unusedDynamicProviders(resources, moves)],
      moves.some((move) => move.protect),
      ref,
    );
  } catch (error) {
    if (!(error instanceof CliError) || error.exitCode !== 1) throw error;
    throw new CliError(
      "failed",
      `${error.message}\nThe native webhooks are adopted and the dynamic ones still in the state (the help desk is untouched): run ${stackCommand("migrate", { stack: ref.stackName })} again to finish.`,
    );
  }
  success(
    `moved ${moves.length} webhook${plural(moves.length)} to the native provider, same ids; the help desk received no request`,
  );

  const components = moves.filter((move) => move.component !== undefined);
  if (components.length > 0) {
    warn(
      `${components.length} webhook${plural(components.length)} (${components.map((move) => JSON.stringify(move.name)).join(", ")}) ` +
        "were children of a component and are now at the top level of the stack: declare them there as printed, or keep them in " +
        "the component with the option `aliases: [{ parent: pulumi.rootStackResource }]` (README: Moving from the dynamic `Webhook`)",
    );
  }
  const language = declarationLanguage(project.runtime) ?? "yaml";
  info(
    `In your program, replace the dynamic Webhook declarations of ${moves.map((move) => JSON.stringify(move.name)).join(", ")} ` +
      `(and their import of ${PACKAGE_NAME}'s Webhook) with the following; then \`pulumi preview\` shows no change:`,
  );
  result(
    declarations(language, declared, {
      protect: true,
      version,
      pluginDownloadUrl: pluginDownloadUrlFor(version),
      command: "migrate",
    }),
  );
}

/** `"s"` for a count other than one. */
const plural = (count: number): string => (count === 1 ? "" : "s");

/**
 * What the native default provider's `CheckConfig` would refuse in the stack's `helpdesk:*` config: the settings
 * table's rules, checked by the collector `CheckConfig` runs (`provider/native/config.ts` `checkProviderConfig`), on
 * the values the engine would give it. The environment is not read: the provider reads it only for what the config
 * leaves unset, as the dynamic `Webhook` does.
 *
 * @param config the stack config, secrets decrypted, by namespaced key
 * @returns one message per refused setting (naming `config helpdesk:<name>` and what is allowed; never a secret)
 */
function configProblems(config: Readonly<Record<string, string>>): string[] {
  const reader = stackConfigSettings(config, DEFAULT_CONFIG_NAMESPACE);
  const set = SETTING_NAMES.filter((name) => reader.get(name) !== undefined);
  return collectSettings(set, { config: reader }).problems.map(
    (problem) =>
      `${problem.message} (the native provider would refuse it: set a valid value with \`pulumi config set\`)`,
  );
}

/**
 * The dynamic webhooks of the state, each checked for the move.
 *
 * @param resources the state's resources (pending deletions left out), secrets in plain text
 * @param stackName for messages
 * @param problems problems found already (the config's), listed with the webhooks'
 * @returns the moves, in the state's order
 * @throws CliError (exit 2) listing every problem: an event or url the webhook rule refuses, a name taken by another
 *   native webhook or by a second dynamic one, an id held by a native webhook of another name, another resource
 *   depending on a dynamic webhook; and the config's problems
 */
function plannedMoves(resources: readonly ExportedResource[], stackName: string, problems: string[]): Move[] {
  const root = resources.find((resource) => resource.type === ROOT_STACK_TYPE)?.urn;
  const natives = resources.filter((resource) => resource.type === WEBHOOK_TYPE);
  const dynamics = resources.filter((resource) => resource.type === DYNAMIC_WEBHOOK_TYPE);
  const dynamicUrns = new Set(dynamics.map((resource) => resource.urn));
  const names = new Map<string, number>();
  for (const dynamic of dynamics) names.set(nameOf(dynamic.urn), (names.get(nameOf(dynamic.urn)) ?? 0) + 1);
  const moves: Move[] = [];
  for (const dynamic of dynamics) {
    const name = nameOf(dynamic.urn);
    const what = `dynamic Webhook ${JSON.stringify(name)}`;
    const outputs = dynamic.outputs ?? {};
    const inputs = { event: stateValue(outputs.event), url: stateValue(outputs.url) };
    const failures = webhookProblems(inputs);
    if (!dynamic.id)
      problems.push(
        `${what} has no id in the state (its creation did not finish): run \`pulumi up\` or \`pulumi refresh\` first`,
      );
    for (const failure of failures) problems.push(`${what}: ${failure.reason}`);
    if ((names.get(name) ?? 0) > 1)
      problems.push(
        `${what}: ${names.get(name)} dynamic Webhooks of stack "${stackName}" have that name (in different components); they cannot all move to the top level: rename all but one (with \`aliases\`) first`,
      );
    const sameName = natives.find((native) => nameOf(native.urn) === name);
    const sameId = natives.find((native) => native.id === dynamic.id);
    if (sameName && sameName.id !== dynamic.id)
      problems.push(
        `${what}: the name is already the native webhook ${JSON.stringify(sameName.id)} of stack "${stackName}"; rename one of them first`,
      );
    else if (sameId && sameId !== sameName)
      problems.push(
        `${what}: its id ${JSON.stringify(dynamic.id)} is already the native webhook ${JSON.stringify(nameOf(sameId.urn))}; remove one of them from the state first`,
      );
    const dependents = resources.filter(
      (resource) => !dynamicUrns.has(resource.urn) && dependsOn(resource, dynamic.urn),
    );
    if (dependents.length > 0) {
      problems.push(
        `${what}: ${dependents.map((resource) => JSON.stringify(nameOf(resource.urn))).join(", ")} depend${dependents.length === 1 ? "s" : ""} on it; remove that dependency from your program and run \`pulumi up\` first`,
      );
    }
    const token = carriedToken(dynamic);
    if (typeof token === "string") problems.push(`${what}: ${token}`);
    if (failures.length > 0 || !dynamic.id || typeof token === "string") continue;
    moves.push({
      id: dynamic.id,
      event: inputs.event as WebhookEvent, // the webhook rule has passed it: one of the events, the url a string
      url: inputs.url as string,
      token,
      name,
      urn: dynamic.urn,
      adopted: sameName !== undefined && sameName.id === dynamic.id,
      protect: dynamic.protect === true,
      component: dynamic.parent !== undefined && dynamic.parent !== root ? dynamic.parent : undefined,
    });
  }
  if (problems.length > 0) {
    throw new CliError(
      "usage",
      [
        `stack "${stackName}" cannot be migrated yet; nothing changed:`,
        ...problems.map((problem) => `  - ${problem}`),
      ].join("\n"),
    );
  }
  return moves;
}

/**
 * The delivery token a dynamic webhook carries into its native twin: its recorded outputs `deliveryToken` and
 * `registeredUrl` (`provider/core/webhooks.ts` records both with a token), and its token inputs as the program
 * declared them (`deliveryToken` given or minted, `useDeliveryToken`, `deliveryTokenRotation`).
 *
 * @param dynamic the dynamic webhook, secrets in plain text
 * @returns the token, undefined for a webhook without one, or a problem (a token without its registered url: a state
 *   no provider wrote) that shows neither
 */
function carriedToken(dynamic: ExportedResource): AdoptedToken | undefined | string {
  const outputs = dynamic.outputs ?? {};
  const deliveryToken = stateValue(outputs.deliveryToken);
  if (deliveryToken === undefined || deliveryToken === null) return undefined;
  const registeredUrl = stateValue(outputs.registeredUrl);
  if (typeof deliveryToken !== "string" || typeof registeredUrl !== "string")
    return "its state has a delivery token without the url registered with it (not written by this provider): run `pulumi up` first";
  const declared = dynamic.inputs ?? {};
  const use = stateValue(declared.useDeliveryToken);
  const rotation = stateValue(declared.deliveryTokenRotation);
  const given = stateValue(declared.deliveryToken);
  return {
    deliveryToken,
    registeredUrl,
    given: given !== undefined && given !== null,
    useDeliveryToken: typeof use === "boolean" ? use : undefined,
    rotation: typeof rotation === "string" ? rotation : undefined,
  };
}

/** Whether a resource names `urn` as its parent, a dependency, a property's dependency or its `deletedWith`. */
function dependsOn(resource: ExportedResource, urn: string): boolean {
  return (
    resource.parent === urn ||
    resource.deletedWith === urn ||
    (resource.dependencies ?? []).includes(urn) ||
    Object.values(resource.propertyDependencies ?? {}).some((urns) => urns.includes(urn))
  );
}

/**
 * The `pulumi-nodejs` providers that only the moved dynamic webhooks use: once the webhooks leave the state, the next
 * `pulumi up` would delete them, a change the preview of the migrated program would show.
 *
 * @returns their URNs
 */
function unusedDynamicProviders(resources: readonly ExportedResource[], moves: readonly Move[]): string[] {
  const leaving = new Set(moves.map((move) => move.urn));
  const used = new Set(
    resources.flatMap((resource) =>
      !leaving.has(resource.urn) && resource.provider ? [providerUrn(resource.provider)] : [],
    ),
  );
  return resources
    .filter(
      (resource) =>
        resource.type === "pulumi:providers:pulumi-nodejs" &&
        !used.has(resource.urn) &&
        !resources.some((other) => dependsOn(other, resource.urn)),
    )
    .map((resource) => resource.urn);
}

/** The URN of a provider reference `<URN>::<id>`. */
const providerUrn = (reference: string): string => reference.slice(0, reference.lastIndexOf("::"));

/**
 * Removes resources from the state without deleting them anywhere: `pulumi state delete <urn>...`, a few hundred URNs
 * per run (each run one edit of the state).
 *
 * @param urns the resources; @param force also protected ones (`--force`)
 * @throws CliError (exit 1) when `pulumi state delete` fails
 */
async function removeFromState(urns: readonly string[], force: boolean, ref: StackRef): Promise<void> {
  for (let start = 0; start < urns.length; start += STATE_DELETE_BATCH) {
    const batch = urns.slice(start, start + STATE_DELETE_BATCH);
    await runPulumi(
      ["state", "delete", "--stack", ref.stackName, "--yes", ...(force ? ["--force"] : []), ...batch],
      ref.workDir,
    );
  }
}
