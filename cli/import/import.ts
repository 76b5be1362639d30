/**
 * `pulumi-helpdesk import --from <file>`: brings a help desk's existing webhooks under a stack in one `pulumi import`
 * run, with no request to the help desk (it has no read endpoint, docs/helpdesk-api.md §4.5): the file's event and url
 * are trusted as given, as the `import` resource option trusts the declared ones.
 *
 * 1. The file is read and every row checked (`./webhook-file.ts`, the one webhook rule); then the stack's state
 *    (`pulumi stack export`, secrets left encrypted): a row whose id the stack holds under its name is skipped as
 *    adopted already; an id under another name, or a name taken by another webhook, is a problem of that row.
 *    Any problem ends the command with exit code 2 before anything changes.
 * 2. The urls are written to the secret stack config `<project>:helpdeskWebhookUrls` (`../adopt/webhook-urls.ts`); a
 *    url that carries a delivery token (`./webhook-file.ts`) goes there without the token's query, and the token to
 *    `<project>:helpdeskDeliveryTokens`: the webhook is adopted with its token (the secret outputs `deliveryToken`
 *    and `registeredUrl`, the url the help desk holds), and declared with `useDeliveryToken` and that `deliveryToken`.
 * 3. The webhooks are adopted (`../adopt/pulumi-import.ts` `runImport`): under the default provider, or with
 *    `--namespace` under the explicit provider of the stack configured from `<ns>:*`. Adopted protected, as
 *    `pulumi import` protects by default: the state is written before the declarations are printed, and a
 *    `pulumi up` of a program without them would delete the help desk's webhooks, which the API cannot read back.
 * 4. The declarations are printed on stdout, in the stack's language (`../adopt/declarations.ts`), with the `protect`
 *    option as adopted.
 */
import { stackCommand } from "../../kernel/commands.js";
import { configKeysFor, DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import { DYNAMIC_WEBHOOK_TYPE, PROVIDER_TYPE, pluginDownloadUrlFor, WEBHOOK_TYPE } from "../../kernel/names.js";
import { packageVersion } from "../../kernel/package-version.js";
import { declarationLanguage, declarations } from "../adopt/declarations.js";
import { nameOf, runImport, type StateResource, stateResources, unprotect } from "../adopt/pulumi-import.js";
import { existingLists, placeUrls } from "../adopt/webhook-urls.js";
import { commandNamespace, namespaceNote, programHint } from "../shared/namespace.js";
import { CliError, info, result, success, warn } from "../shared/output.js";
import { openStack, readProjectFacts, readStackConfigEntries, resolveStackRef } from "../shared/stack-config.js";
import { fileProblems, parseWebhookFile, readWebhookFile, type WebhookRow } from "./webhook-file.js";

/** Options of `import`. */
export interface ImportOptions {
  /** The file of webhooks (`-`: standard input). */
  from: string;
  /** Stack name (default: the selected stack). */
  stack?: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** Config namespace of the explicit provider to adopt under (default `helpdesk`: the default provider). */
  namespace?: string;
  /**
   * Adopt the webhooks protected (default true, as `pulumi import --protect`); false (`--no-protect`) lifts the
   * protection once every row is adopted, so a failure midway leaves no unprotected row.
   */
  protect?: boolean;
}

/**
 * Adopts the webhooks of a file into a stack (see the module's description).
 *
 * @param options the parsed flags
 * @throws WebhookFileError (exit 2) for a bad file or a row that conflicts with the stack; CliError exit 2 when the
 *   namespace is not signed in or has no explicit provider in the stack yet (the message shows how to declare one),
 *   exit 1 when `pulumi` fails
 */
export async function importWebhooks(options: ImportOptions): Promise<void> {
  const namespace = commandNamespace(options.namespace);
  const ref = await resolveStackRef(options.stack, options.cwd);
  const { bytes, source } = await readWebhookFile(options.from);
  const rows = parseWebhookFile(bytes, source);

  const protect = options.protect ?? true;

  const stack = await openStack(ref, false);
  const project = await readProjectFacts(stack.workspace);
  const resources = await stateResources(ref.stackName, ref.workDir);
  const adopted = adoptedRows(rows, resources, source, ref.stackName);
  const config = await readStackConfigEntries(stack);
  const provider =
    namespace === DEFAULT_CONFIG_NAMESPACE ? undefined : explicitProvider(resources, config, namespace, ref.stackName);

  const lists = existingLists(project.name, config, ref.stackName);
  const declared = await placeUrls(stack, ref, lists, asAdoptedBefore(rows, adopted, resources));

  const version = packageVersion();
  const fresh = rows.filter((row) => !adopted.has(row.row));
  if (adopted.size > 0)
    info(`skipped ${adopted.size} row${adopted.size === 1 ? "" : "s"} adopted before (${listRows([...adopted])})`);
  if (fresh.length > 0) {
    info(
      `adopting ${fresh.length} webhook${fresh.length === 1 ? "" : "s"} into stack "${ref.stackName}"${namespaceNote(namespace)} with pulumi import`,
    );
    await runImport(fresh, { stackName: ref.stackName, workDir: ref.workDir, provider, version, protect });
    success(
      `adopted ${fresh.length} webhook${fresh.length === 1 ? "" : "s"}${protect ? ", protected" : ""}; the help desk received no request`,
    );
  } else {
    success("nothing to adopt: every row is in the stack already");
  }
  if (!protect) {
    // Rows adopted protected by an earlier run (one that failed before lifting it, or without --no-protect).
    const ids = new Set(rows.filter((row) => adopted.has(row.row)).map((row) => row.id));
    const stillProtected = resources.filter(
      (resource) => resource.type === WEBHOOK_TYPE && resource.protect && ids.has(resource.id ?? ""),
    );
    if (stillProtected.length > 0) {
      await unprotect(
        stillProtected.map((resource) => resource.urn),
        ref.stackName,
        ref.workDir,
      );
      info(
        `lifted the protection of ${stillProtected.length} webhook${stillProtected.length === 1 ? "" : "s"} adopted before (--no-protect)`,
      );
    }
  }

  const language = declarationLanguage(project.runtime);
  if (!language)
    warn(
      `no declarations for the runtime ${JSON.stringify(project.runtime)}: here they are in Pulumi YAML; write the same in your program's language`,
    );
  info("Declare them in your program as follows; then `pulumi preview` shows no change:");
  result(
    declarations(language ?? "yaml", declared, {
      provider: provider?.name,
      protect,
      version,
      pluginDownloadUrl: pluginDownloadUrlFor(version),
    }),
  );
}

/**
 * The rows as their declarations must read: a row adopted before keeps the form the state holds, so that a row whose
 * url carries a delivery token but which an earlier version adopted with the whole url (no `deliveryToken` output) is
 * declared so too: its url as the file gives it, no token. Every other row as it is.
 */
function asAdoptedBefore(
  rows: readonly WebhookRow[],
  adopted: ReadonlySet<number>,
  resources: readonly StateResource[],
): WebhookRow[] {
  return rows.map((row) => {
    if (row.token === undefined || !adopted.has(row.row)) return row;
    const held = resources.find((resource) => resource.type === WEBHOOK_TYPE && resource.id === row.id);
    return held?.outputs?.deliveryToken === undefined
      ? { ...row, url: row.token.registeredUrl, token: undefined }
      : row;
  });
}

/** Row numbers for a message: at most 20, then how many more. */
function listRows(numbers: readonly number[]): string {
  const shown = numbers.slice(0, 20).join(", ");
  return `row${numbers.length === 1 ? "" : "s"} ${shown}${numbers.length > 20 ? `, ... (${numbers.length - 20} more)` : ""}`;
}

/**
 * The rows the stack holds already: their id under their name, as a native Webhook.
 *
 * @returns the numbers of those rows
 * @throws WebhookFileError (exit 2) when a row's id is in the stack under another name or type, or its name belongs
 *   to another webhook of the stack
 */
function adoptedRows(
  rows: readonly WebhookRow[],
  resources: readonly StateResource[],
  source: string,
  stackName: string,
): Set<number> {
  const webhooks = resources.filter(
    (resource) => resource.type === WEBHOOK_TYPE || resource.type === DYNAMIC_WEBHOOK_TYPE,
  );
  const byId = new Map(webhooks.flatMap((hook) => (hook.id ? [[hook.id, hook] as const] : [])));
  const byName = new Map(webhooks.filter((hook) => hook.type === WEBHOOK_TYPE).map((hook) => [nameOf(hook.urn), hook]));
  const adopted = new Set<number>();
  const problems: string[] = [];
  for (const row of rows) {
    const sameId = byId.get(row.id);
    const sameName = byName.get(row.name);
    if (sameId && sameId.type === WEBHOOK_TYPE && nameOf(sameId.urn) === row.name) adopted.add(row.row);
    else if (sameId)
      problems.push(
        `row ${row.row}: id ${JSON.stringify(row.id)} is already in stack "${stackName}" as ${sameId.type} ${JSON.stringify(nameOf(sameId.urn))}`,
      );
    else if (sameName)
      problems.push(
        `row ${row.row}: name ${JSON.stringify(row.name)} is already the webhook ${JSON.stringify(sameName.id)} of stack "${stackName}"; give the row another name`,
      );
  }
  if (problems.length > 0) throw fileProblems(source, problems);
  return adopted;
}

/**
 * The explicit provider of the stack configured from `<ns>:*`: a `pulumi:providers:helpdesk` of the state whose
 * `baseUrl` input is the config's `<ns>:baseUrl` (preferring one named `<ns>` among several).
 *
 * @returns its name and URN
 * @throws CliError (exit 2) when the namespace has no base URL (sign in first), no such provider is in the stack
 *   (declare it and run `pulumi up` first: the message shows how), or several match
 */
function explicitProvider(
  resources: readonly StateResource[],
  config: Readonly<Record<string, { value: string }>>,
  namespace: string,
  stackName: string,
): { name: string; urn: string } {
  const baseUrlKey = configKeysFor(namespace).baseUrl;
  const baseUrl = config[baseUrlKey]?.value;
  if (!baseUrl) {
    throw new CliError(
      "usage",
      `stack "${stackName}" has no ${baseUrlKey}: sign in first with ${stackCommand("login", { stack: stackName, namespace })}`,
    );
  }
  const matching = resources.filter(
    (resource) =>
      resource.type === PROVIDER_TYPE &&
      !nameOf(resource.urn).startsWith("default") &&
      resource.inputs?.baseUrl === baseUrl,
  );
  const chosen = matching.length === 1 ? matching[0] : matching.find((resource) => nameOf(resource.urn) === namespace);
  if (chosen) return { name: nameOf(chosen.urn), urn: chosen.urn };
  if (matching.length > 1) {
    throw new CliError(
      "usage",
      `stack "${stackName}" has ${matching.length} explicit providers for ${baseUrlKey} (${matching.map((r) => JSON.stringify(nameOf(r.urn))).join(", ")}) and none is named ${JSON.stringify(namespace)}: name the one to adopt under ${JSON.stringify(namespace)}`,
    );
  }
  throw new CliError(
    "usage",
    [
      `stack "${stackName}" has no explicit provider configured from ${namespace}:* yet; the webhooks are adopted under it, so it must exist first.`,
      `Declare it in your program (name it ${JSON.stringify(namespace)}) and run \`pulumi up\`, then run this command again.`,
      ...programHint(namespace),
    ].join("\n"),
  );
}
