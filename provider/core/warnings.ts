import { forPerson } from "../../auth/redact.js";

/** Where a warning goes instead of stderr: set by the native provider plugin to the engine's `Log` service. */
export type WarningSink = (message: string) => void;

let sink: WarningSink | undefined;

/**
 * Sends later warnings to `next` instead of stderr (undefined: back to stderr). The native provider plugin
 * (`provider/native/engine-log.ts`) routes them to the engine's `Log` service, which shows them as warnings of the
 * resource being operated on.
 *
 * @param next receives each warning, already passed through the redaction registry
 */
export function setWarningSink(next: WarningSink | undefined): void {
  sink = next;
}

/**
 * Warnings from inside a provider process. Pulumi's dynamic provider process has no engine logging connection of its
 * own, and the engine shows what a provider writes to stderr; so there a warning is one line on stderr. The native
 * plugin sets a {@link WarningSink}.
 *
 * @param message the warning, already free of credentials
 */
export function warn(message: string): void {
  const text = forPerson(message);
  if (sink) sink(text);
  else process.stderr.write(`warning: ${text}\n`);
}
