/**
 * The benchmarks' clean-up: what a run leaves (stacks with webhooks, stacks, folders) is undone newest first, even
 * when the run fails or is interrupted, and a clean-up that fails is reported, never thrown, so the others still run.
 * One home for bench/bench.ts, bench/delivery-token.ts and bench/native-profile.ts.
 */
import type { Stack } from "@pulumi/pulumi/automation/index.js";

/** A clean-up step: undoes one thing the run did. */
export type Cleanup = () => Promise<void> | void;

/**
 * Runs the clean-ups newest first and empties the list (so a second call, from a signal handler, repeats nothing).
 *
 * @param cleanups the steps, in the order the run registered them (emptied)
 * @param log where a failing step is reported, as `cleanup: <message>`
 */
export async function runCleanups(cleanups: Cleanup[], log: (line: string) => void): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      log(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * The clean-up of a benchmark stack: destroys what is left of it when the run deployed it, then removes the stack.
 *
 * @param entry the stack, its kind's name (for the log) and whether it holds resources now (read when it runs)
 * @param name the stack's name
 * @param log where the destroy is announced
 */
export function stackCleanup(
  entry: { readonly kind: { readonly name: string }; readonly stack: Stack; readonly deployed: boolean },
  name: string,
  log: (line: string) => void,
): Cleanup {
  return async () => {
    if (entry.deployed) {
      log(`cleanup: destroying what is left of the ${entry.kind.name} stack`);
      await entry.stack.destroy({ color: "never" });
    }
    await entry.stack.workspace.removeStack(name, { force: true });
  };
}
