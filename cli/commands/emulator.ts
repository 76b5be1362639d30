/**
 * `pulumi-helpdesk emulator`: runs the local help-desk API (the project's emulator) in the foreground until Ctrl-C,
 * like a local cloud emulator. Prints its base URL and the client a program can sign in with.
 */
import { DEFAULT_CLIENT, startEmulator, type EmulatorOptions } from "../../emulator/index.js";
import { info, result } from "../output.js";

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
    faults: { latencyMs: options.latency, rate429: options.rate429, rate503: options.rate503, rate500: options.rate500, dropRate: options.dropRate },
    ...(options.log ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
  };
  const emulator = await startEmulator(emulatorOptions);
  info(`help-desk emulator listening on ${emulator.url} (Ctrl-C to stop)`);
  result(`base URL:      ${emulator.url}`);
  result(`client id:     ${client.clientId}`);
  result(`redirect URI:  ${client.redirectUri}`);
  result(`web page:      ${emulator.url}/ (account demo / demo)`);
  result(`sign-in link:  ${emulator.loginLink().url} (one use, 10 minutes)`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await emulator.close();
  info("emulator stopped");
}
