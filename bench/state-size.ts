/**
 * The size of a stack's state, read from the file:// backend's checkpoint: bytes per resource and how much of them is
 * the serialized provider (`__provider`, stored in a dynamic resource's inputs and again in its outputs; a native
 * resource has none: its provider is a plugin, referenced by URN).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface StateSize {
  /** Bytes of the checkpoint file. */
  fileBytes: number;
  /** Resources of the measured type in it. */
  resources: number;
  /** Mean bytes of one resource entry, compact JSON. */
  entryBytes: number;
  /** Mean bytes of its `__provider` strings, all copies (0 without any). */
  providerBytes: number;
  /** How many times `__provider` appears in one resource entry: 2 for a dynamic resource, 0 for a native one. */
  providerCopies: number;
}

/** Where the file:// backend in `stateDir` keeps the checkpoint of `project`'s stack `stackName`. */
export function checkpointPath(stateDir: string, project: string, stackName: string): string {
  return join(stateDir, ".pulumi", "stacks", project, `${stackName}.json`);
}

/**
 * Measures a checkpoint file.
 *
 * @param path the checkpoint, see {@link checkpointPath}
 * @param type the resource type token to measure, e.g. `pulumi-nodejs:dynamic/helpdesk:Webhook` or `helpdesk:index:Webhook`
 */
export function measureState(path: string, type: string): StateSize {
  const text = readFileSync(path, "utf8");
  const checkpoint = JSON.parse(text) as { checkpoint: { latest?: { resources?: Array<Record<string, unknown>> } } };
  const entries = (checkpoint.checkpoint.latest?.resources ?? []).filter((resource) => resource.type === type);
  let entryBytes = 0;
  let providerBytes = 0;
  let providerCopies = 0;
  for (const entry of entries) {
    entryBytes += Buffer.byteLength(JSON.stringify(entry));
    for (const field of ["inputs", "outputs"]) {
      const provider = (entry[field] as Record<string, unknown> | undefined)?.__provider;
      if (typeof provider === "string") {
        providerBytes += Buffer.byteLength(provider);
        providerCopies++;
      }
    }
  }
  const n = Math.max(entries.length, 1);
  return {
    fileBytes: Buffer.byteLength(text),
    resources: entries.length,
    entryBytes: entryBytes / n,
    providerBytes: providerBytes / n,
    providerCopies: providerCopies / n,
  };
}
