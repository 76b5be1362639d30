/**
 * What every target of `npm run publish` (scripts/publish/publish.ts) shares: the shape of a target, the error that
 * names the target a registry refused, and running a tool with its output kept for that error.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

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
   * @param message what went wrong and what to do, never a credential
   */
  constructor(target: string, message: string, options?: { cause?: unknown }) {
    super(`${target}: ${message}`, options);
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
 * Fetches a URL (a registry's index) and returns its status and text.
 *
 * @param url the URL
 * @param target the asking target, named in the error
 * @throws PublishError when the server cannot be reached
 */
export async function ask(url: string, target: string): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(url, { headers: { accept: "text/html, application/xml, text/plain, */*" } });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    throw new PublishError(target, `cannot reach ${url}: ${(error as Error).cause ?? (error as Error).message}`, {
      cause: error,
    });
  }
}
