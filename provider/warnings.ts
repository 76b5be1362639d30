import { forPerson } from "../auth/redact.js";

/**
 * Warnings from inside Pulumi's dynamic provider process. That process has no engine logging connection of its
 * own, and the engine shows what a provider writes to stderr; so a warning is one line on stderr.
 *
 * @param message the warning, already free of credentials
 */
export function warn(message: string): void {
  process.stderr.write(`warning: ${forPerson(message)}\n`);
}
