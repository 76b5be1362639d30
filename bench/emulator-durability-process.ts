/**
 * One emulator in a process of its own for the durability benchmark (emulator-durability.ts): the emulator module to
 * load is a parameter, so the same driver runs today's committed emulator (built from `git archive HEAD`) and the
 * working tree's one side by side.
 *
 * Prints one JSON line `{"url": "http://127.0.0.1:PORT"}` on stdout when it listens; stops (closing the emulator, so
 * its data is flushed) on SIGTERM, SIGINT or when its stdin closes, so it never outlives a driver that died.
 *
 * Usage: node bench/emulator-durability-process.ts <emulator module path or specifier> '<EmulatorOptions JSON>'
 */
import { pathToFileURL } from "node:url";
import type { EmulatorOptions, RunningEmulator } from "pulumi-helpdesk/emulator";

const [specifier, optionsJson] = process.argv.slice(2);
if (specifier === undefined) {
  process.stderr.write("usage: emulator-durability-process.ts <emulator module> '<options JSON>'\n");
  process.exit(2);
}
const moduleUrl = specifier.startsWith("/") ? pathToFileURL(specifier).href : specifier;
const { startEmulator } = (await import(moduleUrl)) as {
  startEmulator: (options: EmulatorOptions) => Promise<RunningEmulator>;
};
const options = JSON.parse(optionsJson ?? "{}") as EmulatorOptions;
const emulator = await startEmulator({ port: 0, autoApprove: true, ...options });
process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);

// Closing commits (or, for an emulator with a JSON file, flushes) the data file; a second signal does not close twice.
const stop = (): void => void emulator.close().then(() => process.exit(0));
process.once("SIGTERM", stop).once("SIGINT", stop);
process.stdin.once("close", stop).resume();
