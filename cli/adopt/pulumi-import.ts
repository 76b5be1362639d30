/**
 * How webhooks are adopted into a stack, for `import` and `migrate`: one `pulumi import --file` (CLI >= 3.259,
 * pulumi/pulumi#23987) with each webhook's `inputs` and `outputs` (the provider's Read is skipped, and the help desk,
 * which has no read endpoint, is never asked), the url a secret in the state's form. The file is a FIFO in a private
 * temporary folder (0700): the urls (and the delivery tokens of webhooks adopted with one) pass through the kernel's pipe and never reach a disk; the folder is removed
 * afterwards, and at once on SIGINT, SIGTERM or SIGHUP. Under the default provider each entry names the plugin's
 * version and download URL, so Pulumi installs a missing plugin itself (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES redirects
 * it to a mirror); or under an explicit provider of the stack. Adopted protected, as `pulumi import` protects by
 * default (see {@link runImport}). Pulumi's code generation is off: it needs the language host's `GenerateProgram`,
 * and would write urls into code. Also the state as `pulumi stack export` gives it, and lifting a protection.
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
import type { WebhookEvent } from "../../kernel/events.js";
import { pluginDownloadUrl, WEBHOOK_TYPE } from "../../kernel/names.js";
import { processExists } from "../../kernel/processes.js";
import { stateSecret } from "../../kernel/pulumi-wire.js";
import { ADOPTED_STATE } from "../../kernel/webhook-rules.js";
import { CliError } from "../shared/output.js";
import { PulumiNotFoundError, runPulumi } from "../shared/stack-config.js";

/** A resource of the stack's state as `pulumi stack export` gives it (the fields read here). */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  protect?: boolean;
}

/** The last part of a URN: the resource's name. */
export const nameOf = (urn: string): string => urn.slice(urn.lastIndexOf("::") + 2);

/** A webhook to adopt, checked already (by the file's reader of `import`, or `migrate`'s plan). */
export interface AdoptedWebhook {
  /** The webhook's id in the help desk (docs/helpdesk-api.md §4.4 `:id`). */
  id: string;
  /** The Pulumi resource name it is adopted under. */
  name: string;
  /** The subscribed event (docs/helpdesk-api.md §6). */
  event: WebhookEvent;
  /** The url that receives deliveries, as declared (without a delivery token's query): secret, never shown. */
  url: string;
  /** The delivery token it was registered with (`kernel/delivery-token.ts`), kept; absent for a webhook without one. */
  token?: AdoptedToken | undefined;
}

/**
 * A delivery token an adopted webhook keeps: recorded as the provider records a token (`provider/core/webhooks.ts`:
 * the secret outputs `deliveryToken` and `registeredUrl`, the token inputs as declared), so that the declarations'
 * next `pulumi up` finds no change and the help desk keeps the url it holds.
 */
export interface AdoptedToken {
  /** The token: secret, never shown. */
  deliveryToken: string;
  /** The url the help desk holds, `url` with the token's query: secret, never shown. */
  registeredUrl: string;
  /** Whether the program gives the token as its `deliveryToken` input (`import`: always; `migrate`: as the dynamic one did). */
  given: boolean;
  /** `useDeliveryToken` as declared, if declared. */
  useDeliveryToken: boolean | undefined;
  /** `deliveryTokenRotation` as declared, if declared (plain text, no secret). */
  rotation: string | undefined;
}

/**
 * The inputs and outputs of an adopted webhook, in the state's form (url, token and registered url secrets), as the
 * provider records a webhook it created with the same inputs.
 *
 * @param hook the webhook
 * @returns `inputs` (`event`, `url` and the declared token inputs) and `outputs` (those, `state` {@link ADOPTED_STATE},
 *   and with a token `deliveryToken` and `registeredUrl`)
 */
function adoptedProperties(hook: AdoptedWebhook): {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
} {
  const { event, url, token } = hook;
  const declared: Record<string, unknown> = { event, url: stateSecret(url) };
  if (token?.useDeliveryToken !== undefined) declared.useDeliveryToken = token.useDeliveryToken;
  if (token?.given) declared.deliveryToken = stateSecret(token.deliveryToken);
  if (token?.rotation !== undefined) declared.deliveryTokenRotation = token.rotation;
  const recorded = token
    ? { deliveryToken: stateSecret(token.deliveryToken), registeredUrl: stateSecret(token.registeredUrl) }
    : {};
  return { inputs: declared, outputs: { ...declared, ...recorded, state: ADOPTED_STATE } };
}

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
 * @param webhooks the webhooks, checked and not in the stack yet
 * @param run the stack, its provider, and whether to leave them protected
 * @throws CliError (exit 1) when `pulumi import` fails (its output, shown as it came, says why; the rows it wrote are
 *   protected), or lifting the protection fails (then the message says so and how to finish)
 * @home how webhooks are adopted (one protected `pulumi import` from a FIFO, removed on signals; `--no-protect` lifts the protection afterwards)
 */
export async function runImport(webhooks: readonly AdoptedWebhook[], run: ImportRun): Promise<void> {
  const placement = run.provider
    ? { provider: run.provider.name }
    : { version: run.version, pluginDownloadUrl: pluginDownloadUrl() };
  const file = {
    ...(run.provider ? { nameTable: { [run.provider.name]: run.provider.urn } } : {}),
    resources: webhooks.map((hook) => ({
      type: WEBHOOK_TYPE,
      name: hook.name,
      id: hook.id,
      ...placement,
      ...adoptedProperties(hook),
    })),
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

/**
 * The stack's resources as `pulumi stack export` gives them (secrets left encrypted).
 *
 * @throws CliError (exit 1) when `pulumi stack export` fails
 */
export async function stateResources(stackName: string, workDir: string): Promise<StateResource[]> {
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
export async function unprotect(urns: readonly string[], stackName: string, workDir: string): Promise<void> {
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
