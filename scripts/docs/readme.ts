/**
 * Writes the parts of README.md that state a rule kept elsewhere, between markers
 * `<!-- generated: NAME -->` and `<!-- /generated: NAME -->`:
 *
 * - `settings`: the table of every setting (the same table as the registry's Installation & Configuration page,
 *   `settingsTable` of scripts/docs/registry-pages.ts, from `kernel/settings.ts` `SETTINGS`);
 * - `precedence`: where a setting's value comes from, in the order of `kernel/settings.ts` `SETTING_PRECEDENCE`
 *   (`precedencePhrase` of cli/shared/help.ts, which the CLI's help uses too), with the environment variables of the table;
 * - `published`, `install`, `verify`: whether the version is on the registries (`kernel/published.ts`), the install
 *   table and the CLI's install, and how to check a download against the release workflow's signature
 *   (scripts/docs/published.ts `publishedBlocks`).
 *
 * Each example's README (`examples/<name>/README.md`) has one block, `published`: the sentence on what the
 * registries hold (scripts/docs/published.ts `publishedSentence`), which the registry pages state too.
 *
 * The prose around them is hand-written; tests/repo/readme.test.ts fails while a block differs from what this writes,
 * and holds the README's versions, Node.js floor and names to their homes. After a change to a home, run
 *
 *   npm run build && node scripts/docs/readme.ts
 *
 * Node runs this file directly (type stripping) and takes the project's modules from the build (dist/), as
 * scripts/docs/registry-pages.ts does.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Help from "../../cli/shared/help.js";
import { ROOT } from "../release/executable.ts";
import { type PublishedFacts, publishedBlocks, publishedSentence } from "./published.ts";
import { type PageSources, settingsTable, sourcesFromBuild } from "./registry-pages.ts";

/** What the blocks are written from: the registry pages' sources and the help's precedence phrase. */
export interface ReadmeSources extends PageSources {
  /** cli/shared/help.ts `precedencePhrase` */
  precedencePhrase: typeof Help.precedencePhrase;
}

/** The README's generated blocks, by name. */
export type ReadmeBlocks = Record<"settings" | "precedence" | "published" | "install" | "verify", string>;

/**
 * What the docs' sentences on publication are written from.
 *
 * @param sources the homes (`packageVersion`, `published`, `names`)
 * @returns package.json's version, kernel/published.ts's, and the names
 */
export function publishedFactsOf(sources: Pick<PageSources, "packageVersion" | "published" | "names">): PublishedFacts {
  return {
    version: sources.packageVersion.packageVersion(),
    published: sources.published.PUBLISHED_VERSION,
    names: sources.names,
    packageName: sources.packageVersion.PACKAGE_NAME,
  };
}

/**
 * Renders the README's generated blocks.
 *
 * @param sources the homes
 * @returns each block's text (without its markers), ending in a newline
 */
export function readmeBlocks(sources: ReadmeSources): ReadmeBlocks {
  const { settings, config, names } = sources;
  const variables = settings.SETTING_NAMES.flatMap((name) => {
    const env = (settings.SETTINGS[name] as Partial<Pick<typeof settings.SETTINGS.baseUrl, "env">>).env;
    return env ? [`\`${env}\``] : [];
  });
  const phrase = sources.precedencePhrase({
    explicit: `a value set explicitly (a \`${names.CLI_EXECUTABLE} login\` flag, or an argument of an explicit \`Provider\`)`,
    config: `the stack's config (\`${config.DEFAULT_CONFIG_NAMESPACE}:<name>\`, or \`<ns>:<name>\` for \`login --namespace <ns>\`)`,
    environment: `the environment variable (${variables.join(", ")})`,
  });
  return {
    settings: `${settingsTable(sources).join("\n")}\n`,
    precedence: `Where a value comes from, first match wins: ${phrase}, else the default.\n`,
    ...publishedBlocks(publishedFactsOf(sources)),
  };
}

/**
 * The generated block of each example's README.
 *
 * @param sources the homes
 * @returns the `published` block's text
 */
export function exampleBlocks(sources: Pick<PageSources, "packageVersion" | "published" | "names">): {
  published: string;
} {
  return { published: `${publishedSentence(publishedFactsOf(sources))}\n` };
}

/**
 * The examples' READMEs (every folder of `examples/` that has one), repository-relative.
 *
 * @param root the repository
 * @returns e.g. `["examples/basic/README.md", ...]`, sorted
 */
export function exampleReadmes(root: string = ROOT): string[] {
  return readdirSync(join(root, "examples"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join("examples", entry.name, "README.md"))
    .filter((path) => {
      try {
        readFileSync(join(root, path));
        return true;
      } catch {
        return false;
      }
    })
    .sort();
}

/** The markers around a block. */
function markers(name: string): { open: string; close: string } {
  return { open: `<!-- generated: ${name} -->`, close: `<!-- /generated: ${name} -->` };
}

/**
 * The README with each block replaced by its generated text.
 *
 * @param readme the README's text
 * @param blocks the blocks to put in
 * @returns the new text
 * @throws Error naming the block when its markers are missing or out of order
 */
export function fillBlocks(readme: string, blocks: Readonly<Record<string, string>>): string {
  let text = readme;
  for (const [name, body] of Object.entries(blocks)) {
    const { open, close } = markers(name);
    const start = text.indexOf(open);
    const end = text.indexOf(close);
    if (start < 0 || end < start) throw new Error(`the document has no block ${open} ... ${close}`);
    text = `${text.slice(0, start + open.length)}\n${body}${text.slice(end)}`;
  }
  return text;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = (module: string): string => new URL(`../../dist/${module}.js`, import.meta.url).href;
  const { precedencePhrase } = (await import(dist("cli/shared/help"))) as typeof Help;
  const sources = await sourcesFromBuild();
  const file = join(ROOT, "README.md");
  writeFileSync(file, fillBlocks(readFileSync(file, "utf8"), readmeBlocks({ ...sources, precedencePhrase })));
  console.error("README.md: generated blocks written");
  for (const example of exampleReadmes()) {
    writeFileSync(join(ROOT, example), fillBlocks(readFileSync(join(ROOT, example), "utf8"), exampleBlocks(sources)));
    console.error(`${example}: generated block written`);
  }
}
