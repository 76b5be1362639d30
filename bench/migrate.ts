/**
 * The migration benchmark (`npm run bench:migrate`, run by scripts/lib/after-setup.sh): how long `pulumi-helpdesk
 * migrate` takes to move N dynamic `Webhook`s of a TypeScript stack to the native provider, with the real Pulumi CLI,
 * the built CLI (dist/), a file:// backend in a temporary directory, the emulator on 127.0.0.1 and this checkout's
 * plugin (the launcher of plugin/). For N = 10 and N = 300 (`--quick`: N = 10 and 50), each in a fresh stack: the
 * `pulumi up` that creates the dynamic webhooks (N requests to the help desk: what the migration is compared with),
 * the whole `migrate` command (the state export, the checks, the secret config write, one `pulumi import` run, one
 * `pulumi state delete` run), then a no-change `pulumi preview` of the printed declarations, and the ratio of the
 * largest N to the smallest in the same run (the floor). Timings are printed, never asserted: a table on stdout,
 * progress on stderr.
 */

import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_EXECUTABLE, nodejsSdkPackage } from "../dist/kernel/names.js";
// The built package (bench/run.sh builds it): type stripping resolves no `.js` import of a `.ts` source.
import { PACKAGE_NAME } from "../dist/kernel/package-version.js";
import { required } from "../dist/kernel/required.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { eachSize, pulumiImportDuration } from "./sizes.ts";
import { timed } from "./timed.ts";

const sizes = process.argv.includes("--quick") ? [10, 50] : [10, 300];

/** The dynamic program: `bench:count` webhooks of `pulumi-helpdesk`, every fourth url a secret. */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Webhook } from "${PACKAGE_NAME}";

const events = ["ticket_opened", "ticket_closed", "customer_replied", "note_added"] as const;
const count = new pulumi.Config("bench").requireNumber("count");
for (let i = 0; i < count; i++) {
  const url = \`https://hooks.example.test/bench/\${i}?token=\${i.toString(36)}\`;
  new Webhook(\`hook-\${i}\`, { event: events[i % events.length]!, url: i % 4 === 0 ? pulumi.secret(url) : url });
}
`;

/**
 * A TypeScript project that resolves `@pulumi/pulumi`, the dynamic `Webhook` (this checkout) and the native SDK
 * (dist/native) as an installed one would: links in its node_modules.
 */
function makeProject(dir: string): void {
  const modules = join(dir, "node_modules");
  const [scope = ""] = nodejsSdkPackage().split("/");
  mkdirSync(join(modules, scope), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry !== scope && !entry.startsWith("."))
      symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  symlinkSync(join(repoRoot, "dist", "native"), join(modules, nodejsSdkPackage()));
  symlinkSync(repoRoot, join(modules, PACKAGE_NAME));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-migrate", private: true }));
  writeFileSync(
    join(dir, "Pulumi.yaml"),
    `name: bench-migrate\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.ts\nplugins:\n  providers:\n    - name: helpdesk\n      path: ${join(repoRoot, "plugin")}\n`,
  );
  writeFileSync(join(dir, "index.ts"), PROGRAM);
}

const rows = await eachSize("bench:migrate", sizes, makeProject, async (n, { program, env }) => {
  const stack = ["--stack", "bench", "--non-interactive"];
  await timed("pulumi", ["config", "set", "bench:count", String(n), "--stack", "bench"], program, env);
  process.stderr.write(`bench:migrate: N=${n}: pulumi up of ${n} dynamic webhooks\n`);
  const up = await timed("pulumi", ["up", "--yes", "--skip-preview", ...stack], program, env);
  process.stderr.write(`bench:migrate: N=${n}: ${CLI_EXECUTABLE} migrate\n`);
  const migrated = await timed(
    process.execPath,
    [join(repoRoot, "dist", "bin", `${CLI_EXECUTABLE}.js`), "migrate", "--stack", "bench"],
    program,
    env,
  );
  writeFileSync(join(program, "index.ts"), `${migrated.stdout}\n`);
  process.stderr.write(`bench:migrate: N=${n}: pulumi preview --expect-no-changes\n`);
  const preview = await timed("pulumi", ["preview", "--expect-no-changes", ...stack], program, env);
  const row = {
    n,
    upSeconds: up.seconds,
    migrateSeconds: migrated.seconds,
    pulumiImport: pulumiImportDuration(migrated.stderr),
    previewSeconds: preview.seconds,
  };
  await timed("pulumi", ["state", "unprotect", "--all", "--yes", ...stack], program, env);
  await timed("pulumi", ["destroy", "--yes", "--skip-preview", ...stack], program, env);
  return row;
});

const floor = required(rows[0], "a measured size");
process.stdout.write(
  `| N | pulumi up of the dynamic webhooks (s) | ${CLI_EXECUTABLE} migrate (s) | ratio to N=${floor.n} | of it, the pulumi import run | preview of the declarations (s) |\n|---|---|---|---|---|---|\n`,
);
for (const row of rows) {
  process.stdout.write(
    `| ${row.n} | ${row.upSeconds.toFixed(1)} | ${row.migrateSeconds.toFixed(1)} | ${(row.migrateSeconds / floor.migrateSeconds).toFixed(1)} | ${row.pulumiImport} | ${row.previewSeconds.toFixed(1)} |\n`,
  );
}
