/**
 * What every target of `npm run publish` (scripts/publish/publish.ts) shares: the shape of a target and of what it
 * needs, the error that names the target a registry refused, running a tool with its output kept for that error,
 * and the redaction of credentials from everything printed ({@link redactText}).
 *
 * Imports only Node.js: the publish job runs this with no node_modules.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

/** What one target is given: the release folder, its version, and the run's options. */
export interface PublishContext {
  /** absolute path of the release folder (`npm run release` wrote it) */
  release: string;
  /** the release's version, package.json's, e.g. `"0.3.0"` */
  version: string;
  /** the repository's root folder (the Java SDK is built and the Go SDK zipped from it) */
  root: string;
  /** `--go-proxy <folder>`: write the Go module into this GOPROXY-protocol folder instead of pushing its tag */
  goProxy?: string;
  /** `--github-release-folder <folder>`: write the GitHub release's assets into `<folder>/v<version>/` instead of using `gh` */
  githubReleaseFolder?: string;
  /** `--go-remote <name or URL>`: the git remote the Go module's tag is pushed to */
  goRemote?: string;
  /** `--dry-run`: nothing is sent */
  dryRun: boolean;
}

/**
 * One thing a target needs before it asks or sends anything: a tool, a file, a setting. `npm run publish` checks
 * every chosen target's needs first and names all that are missing, per target, in one message (nothing sent).
 */
export interface Need {
  /** what is needed, for the message, e.g. `gh (the GitHub CLI) on PATH` */
  what: string;
  /** what to do when it is missing, e.g. `install it, or give --github-release-folder <folder>` */
  remedy: string;
  /** whether it is there (checked once, before anything is asked) */
  present: boolean;
  /**
   * When set, `--dry-run` goes on without it (the target's survey copes) and says so: what the dry run could not do,
   * e.g. `did not ask the GitHub release what it holds: every asset is listed as would publish`.
   */
  dryRunWithout?: string;
}

/**
 * The file `command` runs: the path itself when it names a folder, else the first executable file of that name in a
 * folder of `PATH` (own code: Node.js has no `which`, and spawning one to find out is a tool more to need).
 *
 * @returns the executable's path, or undefined when there is none
 */
export function onPath(command: string, path: string = process.env.PATH ?? ""): string | undefined {
  const candidates = command.includes("/")
    ? [command]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A tool the target runs, needed on PATH.
 *
 * @param command its name, e.g. `gh`
 * @param described what it is, e.g. `the GitHub CLI`
 * @param remedy how to get it
 */
export function toolNeed(command: string, described: string, remedy: string): Need {
  return { what: `${command} (${described}) on PATH`, remedy, present: onPath(command) !== undefined };
}

/**
 * A file the target reads.
 *
 * @param file its path
 * @param remedy what makes it
 */
export function fileNeed(file: string, remedy: string): Need {
  return { what: file, remedy, present: existsSync(file) };
}

/** The environment variables whose values are credentials: never printed, even when a tool echoes them. */
export const SECRET_VARIABLES = [
  "NODE_AUTH_TOKEN",
  "NPM_TOKEN",
  "TWINE_PASSWORD",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "MAVEN_CENTRAL_PASSWORD",
  "MAVEN_GPG_PASSPHRASE",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
] as const;

/** A URL's userinfo (`scheme://user:password@`, `scheme://token@`). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi;
/** A query parameter whose name says it carries a secret (`?token=...`, `&X-Amz-Signature=...`). */
const SECRET_QUERY = /([?&][^=&\s'"#]*(?:token|password|passwd|secret|key|sig|auth)[^=&\s'"#]*=)[^&\s'"#]+/gi;

/**
 * A URL as it may be printed: its userinfo replaced by `***` (`https://***@host/`) and the values of query
 * parameters named like a secret (`token`, `password`, `key`, `sig`, ...) by `***`.
 *
 * @param url a URL (or any text holding one: {@link redactText} is the same on a whole text)
 */
export function redactUrl(url: string): string {
  return url.replace(USERINFO, "$1***@").replace(SECRET_QUERY, "$1***");
}

/**
 * Text as it may be printed (a tool's output, an error message): every URL in it through {@link redactUrl}, and the
 * value of each {@link SECRET_VARIABLES} set in the environment replaced by `***` wherever it appears.
 *
 * @param text any text
 * @param env the environment whose secrets to hide (default: this process's)
 */
export function redactText(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let redacted = redactUrl(text);
  for (const name of SECRET_VARIABLES) {
    const value = env[name];
    if (value && value.length >= 4) redacted = redacted.split(value).join("***");
  }
  return redacted;
}

/** An ANSI colour code as tools print them: CSI, `ESC [`, parameters, a final letter. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what begins the code to remove
export const ANSI_COLOUR = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * Text of a tool's output made into one line: ANSI colour codes removed, HTML entities of the usual five decoded,
 * white space runs made one space.
 */
export function oneLine(text: string): string {
  return text
    .replace(ANSI_COLOUR, "")
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

/** One thing a target sends, and whether its registry already has it. */
export interface Item {
  /** what is sent, e.g. `pulumi-helpdesk@0.3.0` or `pulumi_helpdesk-0.3.0-py3-none-any.whl` */
  what: string;
  /** `present`: the registry holds it with these very bytes (skipped); `missing`: it is sent */
  state: "present" | "missing";
}

/** A registry target of `npm run publish`. */
export interface Target {
  /** the `--only` name: `github`, `npm`, `pypi`, `maven` or `go` */
  name: string;
  /**
   * Every tool, file and setting the target needs to ask its registry and to send ({@link Need}), for this run's
   * options: checked for all chosen targets before anything is asked or sent. Runs nothing but PATH and file look-ups.
   */
  needs(context: PublishContext): Need[];
  /**
   * Checks what the registry needs from the release (files there, metadata complete) and asks the registry what it
   * already holds. Sends nothing.
   *
   * @returns where the target sends (a URL or a folder, never a credential) and each item's state
   * @throws PublishError when the release lacks something the registry needs, or the registry cannot be asked
   */
  survey(context: PublishContext): Promise<{ where: string; items: Item[] }>;
  /**
   * Sends the items {@link survey} found missing.
   *
   * @param missing the `what` of the missing items
   * @throws PublishError when the registry refuses (authentication, an existing version, ...)
   */
  send(context: PublishContext, missing: string[]): Promise<void>;
}

/** An error of one target: its message names the target and where it sends. */
export class PublishError extends Error {
  /** the target's name, e.g. `npm` */
  readonly target: string;
  /**
   * @param target the target's name, e.g. `npm`
   * @param message what went wrong and what to do (any credential in it is redacted: {@link redactText})
   */
  constructor(target: string, message: string, options?: { cause?: unknown }) {
    super(redactText(`${target}: ${message}`), options);
    this.name = "PublishError";
    this.target = target;
  }
}

/** What a finished tool run printed. */
export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a tool to its end (no shell), its output collected.
 *
 * @param command the executable, e.g. `npm`
 * @param args its arguments (never a credential: those go through the environment or a config file)
 * @param options working folder and environment (default: this process's)
 * @returns its exit code and output; it does not throw on a non-zero exit
 * @throws Error when the tool cannot be started (e.g. not on PATH)
 */
export function runTool(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...options, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      if (typeof code !== "number") reject(new Error(`cannot run ${command}: ${error?.message}`, { cause: error }));
      else resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The last lines of a failed run, for an error message.
 *
 * @param ran the run
 * @param lines how many lines of its output at most
 */
export function tail(ran: ToolRun, lines = 25): string {
  return `${ran.stdout}\n${ran.stderr}`.trim().split("\n").slice(-lines).join("\n");
}

/**
 * @param file a file
 * @param algorithm `sha1`, `sha256` or `sha512`
 * @param encoding `hex` or `base64`
 * @returns the file's digest
 */
export function digestOf(
  file: string,
  algorithm: "sha1" | "sha256" | "sha512",
  encoding: "hex" | "base64" = "hex",
): string {
  return createHash(algorithm).update(readFileSync(file)).digest(encoding);
}

/**
 * Fetches a URL (a registry's index) and returns its status and text. A URL's userinfo (`https://user:password@host/`,
 * as `PIP_INDEX_URL` may carry it) is sent as HTTP Basic authentication (fetch refuses a URL holding credentials) and
 * never printed.
 *
 * @param url the URL
 * @param target the asking target, named in the error
 * @throws PublishError when the server cannot be reached
 */
export async function ask(url: string, target: string): Promise<{ status: number; text: string }> {
  const parsed = new URL(url);
  const headers: Record<string, string> = { accept: "text/html, application/xml, text/plain, */*" };
  if (parsed.username || parsed.password) {
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    parsed.username = "";
    parsed.password = "";
  }
  try {
    const response = await fetch(parsed, { headers });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    throw new PublishError(
      target,
      `cannot reach ${redactUrl(url)}: ${(error as Error).cause ?? (error as Error).message}`,
      { cause: error },
    );
  }
}
