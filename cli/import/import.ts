/**
 * `pulumi-helpdesk import --from <file>`: brings a help desk's existing webhooks under a stack in one `pulumi import`
 * run, with no request to the help desk (it has no read endpoint, docs/helpdesk-api.md §4.5): the file's event and url
 * are trusted as given, as the `import` resource option trusts the declared ones.
 *
 * 1. The file is read and every row checked (`./webhook-file.ts`, the one webhook rule); then the stack's state
 *    (`pulumi stack export`, secrets left encrypted): a row whose id the stack holds under its name is skipped as
 *    adopted already; an id under another name, or a name taken by another webhook, is a problem of that row.
 *    Any problem ends the command with exit code 2 before anything changes.
 * 2. The urls are written to the secret stack config `<project>:helpdeskWebhookUrls` (`./declarations.ts` says why
 *    one value), through `pulumi config set --secret` with the value on stdin. The value already there is read by
 *    position as the printed code reads it (an empty item is refused), and only as a secret (a plain-text one is
 *    refused: it would hold credentials in `Pulumi.<stack>.yaml`).
 * 3. {@link runImport}: one `pulumi import --file` (CLI >= 3.259, pulumi/pulumi#23987) with each webhook's `inputs`
 *    and `outputs` (the provider's Read is skipped), the url a secret in the state's form. The file is a FIFO in a
 *    private temporary folder (0700): the urls pass through the kernel's pipe and never reach a disk; the folder is
 *    removed afterwards, and at once on SIGINT, SIGTERM or SIGHUP. Under the default provider each entry names the
 *    plugin's version and download URL, so Pulumi installs a missing plugin itself (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES
 *    redirects it to a mirror); with `--namespace` under the explicit provider of the stack configured from `<ns>:*`.
 *    Adopted protected, as `pulumi import` protects by default: the state is written before the declarations are
 *    printed, and a `pulumi up` of a program without them would delete the help desk's webhooks, which the API cannot
 *    read back. Pulumi's code generation is off: it needs the language host's `GenerateProgram`, and would write urls
 *    into code.
 * 4. The declarations are printed on stdout, in the stack's language (`./declarations.ts`), with the `protect` option
 *    as adopted.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { stackCommand } from "../../kernel/commands.js";
import { configKeysFor, DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import {
  DYNAMIC_WEBHOOK_TYPE,
  PROVIDER_TYPE,
  pluginDownloadUrl,
  pluginDownloadUrlFor,
  WEBHOOK_TYPE,
} from "../../kernel/names.js";
import { packageVersion } from "../../kernel/package-version.js";
import { processExists } from "../../kernel/processes.js";
import { stateSecret } from "../../kernel/pulumi-wire.js";
import { ADOPTED_STATE } from "../../kernel/webhook-rules.js";
import { commandNamespace, namespaceNote, programHint } from "../namespace.js";
import { CliError, info, result, success, warn } from "../output.js";
import {
  openStack,
  PulumiNotFoundError,
  readProjectFacts,
  readStackConfigEntries,
  resolveStackRef,
  runPulumi,
  type StackRef,
  writeStackConfig,
} from "../stack-config.js";
import {
  type Declared,
  declarationLanguage,
  declarations,
  WEBHOOK_URLS_KEY,
  WEBHOOK_URLS_SEPARATOR,
  webhookUrlList,
} from "./declarations.js";
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

/** A resource of the stack's state as `pulumi stack export` gives it (the fields read here). */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  protect?: boolean;
}

/** The last part of a URN: the resource's name. */
export const nameOf = (urn: string): string => urn.slice(urn.lastIndexOf("::") + 2);

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
  const project = readProjectFacts(ref.workDir);
  const { bytes, source } = await readWebhookFile(options.from);
  const rows = parseWebhookFile(bytes, source);

  const protect = options.protect ?? true;

  const stack = await openStack(ref, false);
  const resources = await stateResources(ref.stackName, ref.workDir);
  const adopted = adoptedRows(rows, resources, source, ref.stackName);
  const config = await readStackConfigEntries(stack);
  const provider =
    namespace === DEFAULT_CONFIG_NAMESPACE ? undefined : explicitProvider(resources, config, namespace, ref.stackName);

  const urlsKey = webhookUrlsKey(project.name);
  const urls = existingUrls(urlsKey, config[urlsKey], ref.stackName);
  const declared = await placeUrls(stack, ref, urlsKey, urls, rows);

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
  const byId = new Map(webhooks.filter((hook) => hook.id).map((hook) => [hook.id!, hook]));
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

/** A webhook to adopt: its id in the help desk, its Pulumi resource name, its event and url (checked already). */
export type ImportedWebhook = Pick<WebhookRow, "id" | "name" | "event" | "url">;

/** What {@link runImport} needs besides the webhooks. */
export interface ImportRun {
  /** The stack, as `--stack` takes it. */
  stackName: string;
  /** The project directory. */
  workDir: string;
  /** The explicit provider to adopt under (its name and URN in the state), or undefined for the default provider. */
  provider: { name: string; urn: string } | undefined;
  /** The plugin version the default provider's entries name. */
  version: string;
  /** Leave the webhooks protected (true), or lift the protection once all are adopted (false). */
  protect: boolean;
}

/** The start of the private folders' names: `helpdesk-import-<pid>-XXXXXX` (the pid tells a stale folder). */
const FOLDER_PREFIX = "helpdesk-import-";

/**
 * Adopts webhooks into a stack with one `pulumi import --file` run, the way every adoption goes (`import --from`
 * and any later command that adopts): nothing is asked of the help desk.
 *
 * - The import always protects: a run that fails or is interrupted midway leaves every row it wrote protected, so
 *   no `pulumi up` can delete a webhook of the help desk before its declaration is in the program. With
 *   `run.protect` false the protection of exactly these rows is lifted afterwards, in one `pulumi state unprotect`.
 * - The urls never reach a disk: the file is a FIFO (made by `mkfifo`, which Node.js cannot make itself; found on
 *   PATH or in `/usr/bin:/bin`, the POSIX `getconf PATH`) in a private folder (0700), written as `pulumi import`
 *   reads it. Where there is no `mkfifo` (Windows) it is a 0600 file in that folder. The folder is removed when the
 *   run ends, at once on SIGINT, SIGTERM or SIGHUP (each is passed on to `pulumi`, and the process then ends by it),
 *   and, should the process die uncleanly (SIGKILL), by the next run: folders of processes that are gone are removed
 *   first.
 *
 * @param webhooks the webhooks, checked (`parseWebhookFile`) and not in the stack yet
 * @param run the stack, its provider, and whether to leave them protected
 * @throws CliError (exit 1) when `pulumi import` fails (its output, shown as it came, says why; the rows it wrote are
 *   protected), or lifting the protection fails (then the message says so and how to finish)
 * @home how webhooks are adopted (one protected `pulumi import` from a FIFO, removed on signals; `--no-protect` lifts the protection afterwards)
 */
export async function runImport(webhooks: readonly ImportedWebhook[], run: ImportRun): Promise<void> {
  const placement = run.provider
    ? { provider: run.provider.name }
    : { version: run.version, pluginDownloadUrl: pluginDownloadUrl() };
  const file = {
    ...(run.provider ? { nameTable: { [run.provider.name]: run.provider.urn } } : {}),
    resources: webhooks.map((hook) => {
      const { event, url } = hook;
      return {
        type: WEBHOOK_TYPE,
        name: hook.name,
        id: hook.id,
        ...placement,
        inputs: { event, url: stateSecret(url) },
        outputs: { event, url: stateSecret(url), state: ADOPTED_STATE },
      };
    }),
  };
  removeStaleFolders();
  const dir = mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  const removeFolder = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    chmodSync(dir, 0o700);
    const path = join(dir, "import.json");
    const channel = openChannel(path, JSON.stringify(file));
    const args = [
      "import",
      "--file",
      path,
      "--stack",
      run.stackName,
      "--yes",
      "--skip-preview",
      "--generate-code=false",
      "--protect=true",
      "--non-interactive",
    ];
    try {
      await runPulumi(args, run.workDir, { show: true, onSignal: removeFolder });
    } catch (error) {
      if (error instanceof PulumiNotFoundError) throw error;
      throw new CliError(
        "failed",
        `${(error as Error).message}; any webhook it adopted before it failed is protected in the state`,
        { cause: error },
      );
    } finally {
      await channel.close();
    }
  } finally {
    removeFolder();
  }
  if (run.protect) return;
  const ids = new Set(webhooks.map((hook) => hook.id));
  const urns = (await stateResources(run.stackName, run.workDir))
    .filter((resource) => resource.type === WEBHOOK_TYPE && ids.has(resource.id ?? ""))
    .map((resource) => resource.urn);
  try {
    await unprotect(urns, run.stackName, run.workDir);
  } catch (error) {
    throw new CliError(
      "failed",
      `the ${webhooks.length} webhooks are adopted, protected; lifting the protection (--no-protect) failed: ${(error as Error).message}. Run the same command again: it skips them and lifts it`,
      { cause: error },
    );
  }
}

/** The stack's resources as `pulumi stack export` gives them (secrets left encrypted). */
async function stateResources(stackName: string, workDir: string): Promise<StateResource[]> {
  const exported = JSON.parse(await runPulumi(["stack", "export", "--stack", stackName], workDir)) as {
    deployment?: { resources?: StateResource[] };
  };
  return exported.deployment?.resources ?? [];
}

/** The most URNs one `pulumi state unprotect` is given (its command line stays far below the system's limits). */
const UNPROTECT_BATCH = 500;

/**
 * Lifts the protection of resources: `pulumi state unprotect <urn>...`, one run per {@link UNPROTECT_BATCH} URNs.
 *
 * @throws CliError (exit 1) when it fails
 */
async function unprotect(urns: readonly string[], stackName: string, workDir: string): Promise<void> {
  for (let at = 0; at < urns.length; at += UNPROTECT_BATCH) {
    await runPulumi(
      [
        "state",
        "unprotect",
        "--stack",
        stackName,
        "--yes",
        "--non-interactive",
        ...urns.slice(at, at + UNPROTECT_BATCH),
      ],
      workDir,
    );
  }
}

/**
 * The namespaced stack config key of the adopted urls: {@link WEBHOOK_URLS_KEY} in the project's namespace, as
 * `new pulumi.Config()` reads it.
 *
 * @param projectName the project's name (`Pulumi.yaml` `name`)
 */
export function webhookUrlsKey(projectName: string): string {
  return `${projectName}:${WEBHOOK_URLS_KEY}`;
}

/**
 * Gives every webhook a place in the secret url list: the one its url has from an earlier run, else a new one at the
 * end; writes the list (`pulumi config set --secret`, the value on stdin) when it grew.
 *
 * @param urls the list as {@link existingUrls} read it; extended in place
 * @param webhooks the webhooks to declare, in the order of their declarations
 * @returns each webhook's declaration: its name, event and url position
 * @throws CliError (exit 1) when writing the config fails
 */
export async function placeUrls(
  stack: Stack,
  ref: StackRef,
  urlsKey: string,
  urls: string[],
  webhooks: readonly Pick<WebhookRow, "name" | "event" | "url">[],
): Promise<Declared[]> {
  const before = urls.length;
  const declared: Declared[] = webhooks.map((hook) => {
    let urlIndex = urls.indexOf(hook.url);
    if (urlIndex < 0) urlIndex = urls.push(hook.url) - 1;
    return { name: hook.name, event: hook.event, urlIndex };
  });
  if (urls.length !== before) {
    info(`writing the urls to the secret stack config ${urlsKey}`);
    await writeStackConfig(stack, ref, [{ key: urlsKey, value: urls.join(WEBHOOK_URLS_SEPARATOR), secret: true }]);
  }
  return declared;
}

/**
 * The urls already in the config list, by position as the printed code reads them.
 *
 * @param key the namespaced key; @param entry its value and secret flag, if set
 * @throws CliError (exit 2) when the value is not a secret (the urls may carry credentials, and would be kept in
 *   plain text in `Pulumi.<stack>.yaml`) or holds an empty item (two spaces in a row, a leading or trailing space:
 *   every position after it would name another webhook's url)
 */
export function existingUrls(
  key: string,
  entry: { value: string; secret: boolean } | undefined,
  stackName: string,
): string[] {
  if (entry === undefined) return [];
  if (!entry.secret) {
    throw new CliError(
      "usage",
      `the stack config ${key} of stack "${stackName}" is plain text, but webhook urls may carry credentials: make it a secret ` +
        `(pulumi config get ${key} --stack ${stackName} | pulumi config set --secret ${key} --stack ${stackName}), then run this command again`,
    );
  }
  const list = webhookUrlList(entry.value);
  if ("urls" in list) return list.urls;
  throw new CliError(
    "usage",
    `the stack config ${key} of stack "${stackName}" has an empty item at position ${list.emptyItem} (two spaces in a row, or a leading or ` +
      "trailing space): the declarations read each url by its position in the list separated by single spaces, so an empty item gives " +
      "every later webhook another one's url. Set the value with single spaces (pulumi config set --secret), then run this command again",
  );
}

/**
 * Removes the private folders of earlier runs whose process is gone (a run killed with SIGKILL, or of a version that
 * did not handle signals, whose folders held every url in plain text): this user's own `helpdesk-import-*` folders in
 * the temporary folder. Best effort: a folder that cannot be read or removed is left.
 */
function removeStaleFolders(): void {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid !== undefined && processExists(Number(pid))) continue;
    const path = join(tmpdir(), name);
    try {
      const stats = lstatSync(path);
      if (stats.isDirectory() && (uid === undefined || stats.uid === uid))
        rmSync(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/** The import file as `pulumi import` reads it, and how to end it. */
interface Channel {
  /** Settles once nothing waits on the file any more (call after `pulumi import` has exited). */
  close(): Promise<void>;
}

/**
 * Makes `path` the import file holding `text`: a FIFO written as `pulumi import` reads it (it opens the file once,
 * `readImportFile` in pkg/cmd/pulumi/operations/import.go, and decodes one JSON value), else a 0600 file.
 */
function openChannel(path: string, text: string): Channel {
  if (!makeFifo(path)) {
    writeFileSync(path, text, { mode: 0o600 });
    return { close: async () => undefined };
  }
  let settled = false;
  // Opening a FIFO to write waits (in libuv's thread pool) until a reader opens it. EPIPE: the reader stopped early,
  // and `pulumi import` reports why.
  const writing = (async () => {
    const handle = await open(path, "w");
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
  })()
    .catch(() => undefined)
    .finally(() => (settled = true));
  return {
    async close() {
      // A `pulumi` that exited without opening the file leaves the writer waiting: a reader that opens and closes
      // releases it.
      while (!settled && existsSync(path)) {
        try {
          closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
        } catch {
          // removed meanwhile
        }
        await sleep(10);
      }
      if (settled) await writing;
    },
  };
}

/**
 * Makes a FIFO (mode 0600) with `mkfifo` from PATH or the POSIX standard PATH.
 *
 * @returns false when there is no `mkfifo` (Windows) or it failed
 */
function makeFifo(path: string): boolean {
  if (process.platform === "win32") return false;
  const folders = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/bin"].filter(Boolean);
  const mkfifo = folders.map((folder) => join(folder, "mkfifo")).find((candidate) => existsSync(candidate));
  if (!mkfifo) return false;
  return spawnSync(mkfifo, ["-m", "600", path], { stdio: "ignore" }).status === 0 && statSync(path).isFIFO();
}
