/**
 * The emulator in a process of its own, for the load test of bench/load.ts: the load tool and the server
 * must not share one event loop, or the figure would measure their contention instead of the server.
 *
 * Prints one JSON line `{"url": "http://127.0.0.1:PORT"}` on stdout when it listens; stops on SIGTERM, SIGINT or when
 * its stdin closes (so it never outlives a driver that died).
 *
 * Usage: node bench/emulator-process.ts '<clients JSON>'
 */
import { type EmulatorClient, startEmulator } from "pulumi-helpdesk/emulator";

const clients = JSON.parse(process.argv[2] ?? "[]") as EmulatorClient[];
const emulator = await startEmulator({ port: 0, autoApprove: true, clients });
process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await emulator.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
process.stdin.on("close", () => void stop());
process.stdin.on("end", () => void stop());
process.stdin.resume();
