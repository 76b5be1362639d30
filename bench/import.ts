/**
 * The adoption benchmark (`npm run bench:import`, run by scripts/lib/after-setup.sh): how long `pulumi-helpdesk import
 * --from` takes to adopt N existing webhooks, with the real Pulumi CLI, the built CLI (dist/), a file:// backend in a
 * temporary directory, the emulator on 127.0.0.1 and this checkout's plugin (the launcher of plugin/). For N = 10 and
 * N = 1000 (`--quick`: N = 10 and 100), each into a fresh stack of a YAML project: the whole command (the file's
 * checks, `pulumi stack export`, the secret config write, the one `pulumi import` run), then a no-change `pulumi
 * preview` of the printed declarations, and the ratio of the largest N to the smallest in the same run (the floor).
 * Timings are printed, never asserted: a table on stdout, progress on stderr.
 */

import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// The built package, as stack-config.ts says why.
import { CLI_EXECUTABLE } from "../dist/kernel/names.js";
import { required } from "../dist/kernel/required.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { eachSize, pulumiImportDuration } from "./sizes.ts";
import { timed } from "./timed.ts";

const sizes = process.argv.includes("--quick") ? [10, 100] : [10, 1000];
const events = ["ticket_opened", "ticket_closed", "customer_replied", "note_added"];

/** A YAML project with this checkout's plugin (the launcher of plugin/). */
function makeProject(dir: string): void {
  writeFileSync(
    join(dir, "Pulumi.yaml"),
    `name: bench-import\nruntime: yaml\nplugins:\n  providers:\n    - name: helpdesk\n      path: ${join(repoRoot, "plugin")}\n`,
  );
}

const rows = await eachSize(
  "bench:import",
  sizes,
  makeProject,
  async (n, { work, program, env, baseUrl, accessToken }) => {
    process.stderr.write(`bench:import: N=${n}: registering ${n} webhooks directly\n`);
    const lines = ["id,event,url"];
    for (let i = 0; i < n; i++) {
      const event = required(events[i % events.length], "an event");
      const url = `https://hooks.example.test/bench/${n}/${i}?token=${i.toString(36)}`;
      const response = await fetch(`${baseUrl}/v1/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ event, url }),
      });
      const { webhook } = (await response.json()) as { webhook: { id: string } };
      lines.push(`${webhook.id},${event},${url}`);
    }
    writeFileSync(join(work, "webhooks.csv"), `${lines.join("\n")}\n`);
    process.stderr.write(`bench:import: N=${n}: ${CLI_EXECUTABLE} import\n`);
    const adopted = await timed(
      process.execPath,
      [
        join(repoRoot, "dist", "bin", `${CLI_EXECUTABLE}.js`),
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
    return {
      n,
      importSeconds: adopted.seconds,
      pulumiImport: pulumiImportDuration(adopted.stderr),
      previewSeconds: preview.seconds,
    };
  },
);

const floor = required(rows[0], "a measured size");
process.stdout.write(
  `| N | ${CLI_EXECUTABLE} import (s) | ratio to N=${floor.n} | of it, the pulumi import run | preview of the declarations (s) | ratio to N=${floor.n} |\n|---|---|---|---|---|---|\n`,
);
for (const row of rows) {
  process.stdout.write(
    `| ${row.n} | ${row.importSeconds.toFixed(1)} | ${(row.importSeconds / floor.importSeconds).toFixed(1)} | ${row.pulumiImport} | ${row.previewSeconds.toFixed(1)} | ${(row.previewSeconds / floor.previewSeconds).toFixed(1)} |\n`,
  );
}
