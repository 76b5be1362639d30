/**
 * The repository's root folder, for the tests, the benchmark and the scripts (no shipped room imports this: shipped
 * code finds its own package through kernel/package-version.ts). An absolute path ending in `/`.
 */
import { fileURLToPath } from "node:url";

/** The repository root: an absolute path ending in `/` (this file is `scripts/lib/repo-root.ts`). */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
