/**
 * Test support: what a test's child processes must not inherit from the test runner's environment, and the copy
 * without it.
 */
import { SETTING_NAMES, SETTINGS, type SettingSpec } from "../../kernel/settings.js";

/**
 * The environment variables that fill help-desk settings (`env` of kernel/settings.ts `SETTINGS`, e.g.
 * `HELPDESK_BASE_URL`): a test's runs must not take the runner's, or a person's shell would change what they do.
 */
export const SETTING_VARIABLES: readonly string[] = Object.freeze(
  SETTING_NAMES.flatMap((name) => (SETTINGS[name] as SettingSpec).env ?? []),
);

/** The test runner's own variables (vitest's, its `NODE_OPTIONS`), which must not reach a program Pulumi runs. */
const RUNNER_VARIABLES = ["NODE_OPTIONS", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID"];

/**
 * A copy of `env` without the help-desk setting variables ({@link SETTING_VARIABLES}), and with `runner: true` without
 * the test runner's variables too (for `pulumi` and the programs it runs).
 *
 * @param env the environment to copy (not changed)
 * @returns a new environment object
 */
export function withoutSettingVariables(env: NodeJS.ProcessEnv, options: { runner?: boolean } = {}): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of [...SETTING_VARIABLES, ...(options.runner ? RUNNER_VARIABLES : [])]) delete copy[name];
  return copy;
}
