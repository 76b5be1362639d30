/**
 * The `emulator` command: its options (the client it registers, the data file, the faults), help and examples; the
 * emulator (`./emulator.ts`, and the server it starts) is loaded only when it runs.
 */
import { Command, InvalidArgumentError } from "commander";
import { DEFAULT_CLIENT } from "../../emulator/defaults.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { DEFAULT_EMULATOR_PORT, positiveInt, share } from "../shared/options.js";
import type { EmulatorCommandOptions } from "./emulator.js";

/** `--synchronous`'s parser: `full` or `normal`. */
function synchronousLevel(value: string): "full" | "normal" {
  if (value !== "full" && value !== "normal")
    throw new InvalidArgumentError(`--synchronous must be full or normal, got ${JSON.stringify(value)}`);
  return value;
}

/** `pulumi-helpdesk emulator`. */
export const emulatorCommand = new Command("emulator")
  .description("Run the local help-desk API emulator in the foreground (Ctrl-C to stop).")
  .option("-p, --port <port>", "port on 127.0.0.1 (0 = any free port)", positiveInt("--port"), DEFAULT_EMULATOR_PORT)
  .option("--client-id <id>", "OAuth client id to register", DEFAULT_CLIENT.clientId)
  .option(
    "--client-secret <secret>",
    "OAuth client secret to register (the default is a public demo value)",
    DEFAULT_CLIENT.clientSecret,
  )
  .option("--redirect-uri <uri>", "redirect URI to register for the client", DEFAULT_CLIENT.redirectUri)
  .option("--auto-approve", "approve authorization requests without the consent page (headless use)", false)
  .option("--token-ttl <seconds>", "access token lifetime in seconds", positiveInt("--token-ttl"), 7200)
  .option("--rotate-refresh-tokens", "issue a new refresh token on each use and revoke the old one", false)
  .option(
    "--data <file>",
    "keep clients, tokens, webhooks and the delivery log in this SQLite file (a JSON data file of earlier versions is imported once)",
  )
  .option(
    "--synchronous <level>",
    "data file commits: full (survive a power loss; default) or normal (survive a crash of the emulator)",
    synchronousLevel,
    "full",
  )
  .option(
    "--delivery-log-limit <n>",
    "delivery log entries kept per account",
    positiveInt("--delivery-log-limit"),
    1000,
  )
  .option("--log", "log each request (method, path, status, time) to stderr", false)
  .option("--latency <ms>", "fault: added delay before each API request, in milliseconds", positiveInt("--latency"), 0)
  .option(
    "--rate-429 <share>",
    "fault: share (0..1) of API requests that get 429 with Retry-After",
    share("--rate-429"),
    0,
  )
  .option(
    "--rate-503 <share>",
    "fault: share (0..1) of API requests that get 503 with Retry-After",
    share("--rate-503"),
    0,
  )
  .option("--rate-500 <share>", "fault: share (0..1) of API requests that get 500", share("--rate-500"), 0)
  .option(
    "--drop-rate <share>",
    "fault: share (0..1) of API connections dropped without a response",
    share("--drop-rate"),
    0,
  )
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} emulator --port ${DEFAULT_EMULATOR_PORT} --auto-approve\n  $ ${CLI_EXECUTABLE} emulator --data ./helpdesk.db --rate-429 0.3 --latency 200`,
  )
  .action(async (options: EmulatorCommandOptions) => (await import("./emulator.js")).runEmulator(options));
