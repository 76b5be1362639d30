/**
 * The CLI of the release executable, loaded from the executable's own assets: what `bin/release.ts`'s `import("./pulumi-helpdesk.js")`
 * becomes in the executable's main script (scripts/release/executable.ts maps it here when bundling). The CLI
 * (`bin/pulumi-helpdesk.ts` and everything it imports: commander, undici, the Pulumi Automation API...) is bundled on its own into
 * the asset `cli.cjs`, with V8's code cache for it in `cli.cache` (empty when built for another architecture), so that
 * the plugin and the analyzer, which the engine starts for every `pulumi preview`, `up` and `destroy`, do not carry it:
 * V8 reads a main script's source and code cache in full at every start, and the CLI is most of the bytes.
 *
 * The asset is compiled as a CommonJS module body, given the executable's own `require` (built-in modules only, as the
 * main script's: nothing is resolved from disk) and run at once; a cache V8 refuses (another V8 or other flags) is
 * compiled from source instead. Source: Node.js 24 "Single executable applications" (`sea.getAsset`), `vm.Script`.
 */
import { getAsset } from "node:sea";
import { constants, Script } from "node:vm";
import { CLI_ASSET, CLI_CACHE_ASSET, commonJsWrapper } from "./sea-assets.ts";

const cache = Buffer.from(getAsset(CLI_CACHE_ASSET));
const script = new Script(commonJsWrapper(getAsset(CLI_ASSET, "utf8")), {
  filename: CLI_ASSET,
  ...(cache.length > 0 ? { cachedData: cache } : {}),
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const cli = { exports: {} };
(
  script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: object,
    filename: string,
    dirname: string,
  ) => void
)(cli.exports, require, cli, CLI_ASSET, ".");
