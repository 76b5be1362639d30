/**
 * Terminal output of the CLI: results on stdout, progress and errors on stderr, colour only on a terminal and never
 * when `NO_COLOR` is set (no-color.org). Every line passes through the redaction registry (auth/redact.ts) before
 * the colour is added: no credential and no escape sequence from a server reaches the terminal.
 */
import { forPerson } from "../../auth/redact.js";
import { PulumiHelpdeskError } from "../../kernel/errors.js";

/** The environment variable that turns colour off when set to anything (no-color.org); the CLI's help lists it. */
export const NO_COLOR_VARIABLE = { name: "NO_COLOR", meaning: "plain output, no colour" } as const;

const useColor = (stream: NodeJS.WriteStream): boolean =>
  Boolean(stream.isTTY) && !process.env[NO_COLOR_VARIABLE.name] && process.env.TERM !== "dumb";

function paint(stream: NodeJS.WriteStream, code: string, text: string): string {
  const clean = forPerson(text);
  return useColor(stream) ? `\u001b[${code}m${clean}\u001b[0m` : clean;
}

/**
 * Makes a closed output end the CLI quietly (`pulumi-helpdesk help login | head -3`): a write to a pipe whose reader
 * has gone fails with EPIPE, which Node.js reports as an unhandled 'error' event with a stack trace. Nothing more can
 * reach that reader, so the process ends at once with the exit code it has so far (0 unless something failed). Call
 * it once, before anything is written.
 */
export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit();
    });
  }
}

/** Writes a progress line to stderr (bold on a terminal). */
export function info(text: string): void {
  process.stderr.write(`${paint(process.stderr, "1", text)}\n`);
}

/** Writes a success line to stderr (green on a terminal). */
export function success(text: string): void {
  process.stderr.write(`${paint(process.stderr, "32", `✓ ${text}`)}\n`);
}

/** Writes a warning line to stderr (yellow on a terminal). */
export function warn(text: string): void {
  process.stderr.write(`${paint(process.stderr, "33", `warning: ${text}`)}\n`);
}

/** Writes a result line to stdout (what scripts read). */
export function result(text: string): void {
  process.stdout.write(`${forPerson(text)}\n`);
}

/**
 * A failure the CLI reports as `error: <message>` and exit code `exitCode` (1 = the operation failed, 2 = bad usage).
 * Messages never contain a token or secret.
 */
export class CliError extends PulumiHelpdeskError<"failed" | "usage"> {
  /** Process exit code: 1 failure (code `failed`), 2 usage error (code `usage`). */
  readonly exitCode: number;

  /**
   * @param code `failed` (exit code 1: the operation failed) or `usage` (exit code 2: bad flags or settings)
   * @param message what went wrong and what to do
   * @param options `cause`: the error this one reports
   */
  constructor(code: "failed" | "usage", message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.exitCode = code === "usage" ? 2 : 1;
  }
}

/**
 * Writes `error: <message>` to stderr, through the redaction registry.
 *
 * @param message the failure, possibly holding server text
 */
export function error(message: string): void {
  process.stderr.write(`error: ${forPerson(message)}\n`);
}
