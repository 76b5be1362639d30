/**
 * `pulumi-helpdesk emulator`: runs the local help-desk API (the project's emulator) in the foreground until Ctrl-C,
 * like a local cloud emulator. Prints everything a newcomer needs to sign a stack in to it: its base URL, the OAuth
 * client (id, secret, redirect URI) and the commands to type ({@link signInLines}), the CLI named as the person typed
 * it (`npx pulumi-helpdesk` under npx).
 */
import { DEFAULT_ACCOUNT, DEFAULT_CLIENT, type EmulatorOptions, startEmulator } from "../../emulator/index.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { SETTINGS } from "../../kernel/settings.js";
import { invokedCommand } from "../shared/invocation.js";
import { info, result } from "../shared/output.js";
import { CLIENT_SETTING_NAMES, type ClientSettingName } from "../shared/settings.js";

/** Options of `emulator` as parsed by commander. */
export interface EmulatorCommandOptions {
  port: number;
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
  autoApprove: boolean;
  tokenTtl: number;
  rotateRefreshTokens: boolean;
  data?: string;
  /** `--delivery-log-limit <n>`: delivery log entries kept per account (default 1000). */
  deliveryLogLimit?: number;
  /** `--synchronous <full|normal>`: when a commit of `--data` is on disk (default full; see EmulatorOptions). */
  synchronous?: "full" | "normal";
  log: boolean;
  latency: number;
  rate429: number;
  rate503: number;
  rate500: number;
  dropRate: number;
}

/** The stack the printed `login` line names: the one the examples' READMEs create (`pulumi stack init dev`). */
const EXAMPLE_STACK = "dev";

/**
 * A word as a POSIX shell reads it back unchanged: as it is when it holds only characters no shell treats specially,
 * else in single quotes.
 *
 * @param word any text, e.g. `"http://127.0.0.1:8080"` or `"my app"`
 * @returns e.g. `http://127.0.0.1:8080`, `'my app'`
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The lines that tell a person how to sign a stack in to a running emulator: the `export` of the login settings'
 * environment variables (their names from the settings table, `kernel/settings.ts`), then the `login` command, each
 * ready to type in a Pulumi project's folder.
 *
 * The client secret is in the `export` only when it is the emulator's built-in demo value
 * ({@link DEFAULT_CLIENT}`.clientSecret`, public): a secret the person chose with `--client-secret` is never printed,
 * and `login` asks for it (or reads `HELPDESK_CLIENT_SECRET`).
 *
 * @param settings the emulator's base URL and the registered client, as `login` takes them
 * @param command how the CLI is typed (cli/shared/invocation.ts `invokedCommand`): `pulumi-helpdesk` (the default) or
 *   `npx pulumi-helpdesk`
 * @returns the lines, without indentation or line ends
 */
export function signInLines(settings: Record<ClientSettingName, string>, command: string = CLI_EXECUTABLE): string[] {
  const shown = CLIENT_SETTING_NAMES.filter(
    (name) => name !== "clientSecret" || settings.clientSecret === DEFAULT_CLIENT.clientSecret,
  );
  const exported = shown.map((name) => `${SETTINGS[name].env}=${shellWord(settings[name])}`);
  return [`export ${exported.join(" ")}`, `${command} login --stack ${EXAMPLE_STACK}`];
}

/**
 * Starts the emulator and keeps it running until SIGINT or SIGTERM, then closes it (committing and closing `--data`).
 * Notices about the data file (the import of a version-1 JSON file) go to stderr.
 */
export async function runEmulator(options: EmulatorCommandOptions): Promise<void> {
  const client = {
    ...DEFAULT_CLIENT,
    ...(options.clientId ? { clientId: options.clientId } : {}),
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    ...(options.redirectUri ? { redirectUri: options.redirectUri } : {}),
  };
  const emulatorOptions: EmulatorOptions = {
    port: options.port,
    clients: [client],
    autoApprove: options.autoApprove,
    accessTokenTtlSeconds: options.tokenTtl,
    rotateRefreshTokens: options.rotateRefreshTokens,
    ...(options.data ? { dataFile: options.data } : {}),
    ...(options.deliveryLogLimit !== undefined ? { deliveryLogLimit: options.deliveryLogLimit } : {}),
    ...(options.synchronous !== undefined ? { synchronous: options.synchronous } : {}),
    faults: {
      latencyMs: options.latency,
      rate429: options.rate429,
      rate503: options.rate503,
      rate500: options.rate500,
      dropRate: options.dropRate,
    },
    ...(options.log ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
  };
  const emulator = await startEmulator(emulatorOptions);
  info(`help-desk emulator listening on ${emulator.url} (Ctrl-C to stop)`);
  result(`base URL:      ${emulator.url}`);
  result(`client id:     ${client.clientId}`);
  result(
    client.clientSecret === DEFAULT_CLIENT.clientSecret
      ? `client secret: ${client.clientSecret} (the emulator's built-in demo value: public, for this local emulator only)`
      : `client secret: the one given with --client-secret (not shown)`,
  );
  result(`redirect URI:  ${client.redirectUri}`);
  result(`web page:      ${emulator.url}/ (account ${DEFAULT_ACCOUNT.username} / ${DEFAULT_ACCOUNT.password})`);
  // Not through `result`: its redaction would print `token=[redacted]`, a link that cannot work. The token is a
  // one-use, 10-minute credential of this local emulator's web page, and showing it is what this line is for.
  process.stdout.write(`sign-in link:  ${emulator.loginLink().url} (one use, 10 minutes)\n`);
  result("");
  result(`To sign a stack in to it, type in your Pulumi project's folder (${EXAMPLE_STACK}: the stack's name):`);
  for (const line of signInLines({ baseUrl: emulator.url, ...client }, invokedCommand())) result(`  ${line}`);
  if (client.clientSecret !== DEFAULT_CLIENT.clientSecret)
    result(`  (login asks for the client secret, or reads ${SETTINGS.clientSecret.env})`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await emulator.close();
  info("emulator stopped");
}
