/**
 * Lets plain Node.js run the project's TypeScript sources with no build: an import of `./x.js` that finds no such
 * file loads `./x.ts` instead. The project's modules import their neighbours by their built names (`./names.js`, as
 * `tsc` requires of NodeNext modules), which Node.js's type stripping does not map to the sources; tsx or esbuild
 * would, but they are node_modules, and the publish job (scripts/publish.sh) runs with none: so this resolve hook,
 * Node.js's own `module.registerHooks` (synchronous, in this thread; Node.js 22.15 and 23.5 on, below every floor of
 * kernel/node-support.ts).
 *
 *   node --import ./scripts/lib/source-imports.ts <script.ts>
 *
 * Only relative `.js` imports of `file:` modules that fail are retried; everything else resolves as Node.js does.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith("./") || specifier.startsWith("../");
      if (!relative || !specifier.endsWith(".js") || !context.parentURL?.startsWith("file:")) throw error;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
