/**
 * The adoption benchmark (`npm run bench:import`, run by scripts/lib/after-setup.sh): how long `pulumi-helpdesk import
 * --from` takes to adopt N existing webhooks, with the real Pulumi CLI, the built CLI (dist/), a file:// backend in a
 * temporary directory, the emulator on 127.0.0.1 and this checkout's plugin (the launcher of plugin/). For N = 10 and
 * N = 1000 (`--quick`: N = 10 and 100), each into a fresh stack of a YAML project: the whole command (the file's
 * checks, `pulumi stack export`, the secret config write, the one `pulumi import` run), then a no-change `pulumi
 * preview` of the printed declarations, and the ratio of the largest N to the smallest in the same run (the floor).
 * Timings are printed, never asserted: a table on stdout, progress on stderr.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { signInAutoApproved } from "pulumi-helpdesk/emulator/client";
import { BENCH_CLIENT, backendEnv } from "./stack-config.ts";
import { timed } from "./timed.ts";
// The built package, as stack-config.ts says why.
import { TOKEN_CACHE_DIR_VARIABLE } from "../dist/auth/token-cache.js";
import { CONFIG_KEYS } from "../dist/kernel/config.js";
import { CLI_EXECUTABLE } from "../dist/kernel/names.js";

const root = resolve(import.meta.dirname, "..");
const sizes = process.argv.includes("--quick") ? [10, 100] : [10, 1000];
const events = ["ticket_opened", "ticket_closed", "customer_replied", "note_added"];

const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
const rows: Array<{ n: number; importSeconds: number; pulumiImport: string; previewSeconds: number }> = [];
try {
  const { accessToken } = await signInAutoApproved({ baseUrl: emulator.url, ...BENCH_CLIENT });
  for (const n of sizes) {
    const work = mkdtempSync(join(tmpdir(), "helpdesk-bench-import-"));
    try {
      process.stderr.write(`bench:import: N=${n}: registering ${n} webhooks directly\n`);
      const lines = ["id,event,url"];
      for (let i = 0; i < n; i++) {
        const event = events[i % events.length]!;
        const url = `https://hooks.example.test/bench/${n}/${i}?token=${i.toString(36)}`;
        const response = await fetch(`${emulator.url}/v1/webhooks`, {
          method: "POST",
          headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
          body: JSON.stringify({ event, url }),
        });
        const { webhook } = (await response.json()) as { webhook: { id: string } };
        lines.push(`${webhook.id},${event},${url}`);
      }
      const program = join(work, "program");
      mkdirSync(program);
      mkdirSync(join(work, "state"));
      writeFileSync(
        join(program, "Pulumi.yaml"),
        `name: bench-import\nruntime: yaml\nplugins:\n  providers:\n    - name: helpdesk\n      path: ${join(root, "plugin")}\n`,
      );
      writeFileSync(join(work, "webhooks.csv"), `${lines.join("\n")}\n`);
      const env = {
        ...process.env,
        ...backendEnv(join(work, "state")),
        [TOKEN_CACHE_DIR_VARIABLE.name]: join(work, "token-cache"),
        NO_COLOR: "1",
      };
      await timed("pulumi", ["stack", "init", "bench", "--non-interactive"], program, env);
      await timed("pulumi", ["config", "set", CONFIG_KEYS.baseUrl, emulator.url, "--stack", "bench"], program, env);
      await timed(
        "pulumi",
        ["config", "set", "--secret", CONFIG_KEYS.accessToken, "--stack", "bench"],
        program,
        env,
        accessToken,
      );
      process.stderr.write(`bench:import: N=${n}: ${CLI_EXECUTABLE} import\n`);
      const adopted = await timed(
        process.execPath,
        [
          join(root, "dist", "bin", `${CLI_EXECUTABLE}.js`),
          "import",
          "--stack",
          "bench",
          "--from",
          join(work, "webhooks.csv"),
        ],
        program,
        env,
      );
      appendFileSync(join(program, "Pulumi.yaml"), `${adopted.stdout}\n`);
      process.stderr.write(`bench:import: N=${n}: pulumi preview --expect-no-changes\n`);
      const preview = await timed(
        "pulumi",
        ["preview", "--expect-no-changes", "--stack", "bench", "--non-interactive"],
        program,
        env,
      );
      // The `Duration:` that `pulumi import` prints: its own run, within the command's time.
      const pulumiImport = /^Duration: (\S+)/m.exec(adopted.stderr)?.[1] ?? "?";
      rows.push({ n, importSeconds: adopted.seconds, pulumiImport, previewSeconds: preview.seconds });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
} finally {
  await emulator.close();
}

const floor = rows[0]!;
process.stdout.write(
  `| N | ${CLI_EXECUTABLE} import (s) | ratio to N=${floor.n} | of it, the pulumi import run | preview of the declarations (s) | ratio to N=${floor.n} |\n|---|---|---|---|---|---|\n`,
);
for (const row of rows) {
  process.stdout.write(
    `| ${row.n} | ${row.importSeconds.toFixed(1)} | ${(row.importSeconds / floor.importSeconds).toFixed(1)} | ${row.pulumiImport} | ${row.previewSeconds.toFixed(1)} | ${(row.previewSeconds / floor.previewSeconds).toFixed(1)} |\n`,
  );
}
