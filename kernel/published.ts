/**
 * Which version of pulumi-helpdesk the registries hold: npm (`pulumi-helpdesk`, `@pulumi-helpdesk/helpdesk`), the
 * Python Package Index (`pulumi-helpdesk`), Maven Central (the Java SDK), the Go SDK's tag `sdk/go/v<version>`, and
 * the GitHub release `v<version>` from which Pulumi downloads the plugin. The docs that tell a user what to install
 * (the README's top and install table, the Pulumi Registry pages, the examples' READMEs, the changelog's unreleased
 * section) say it from here (scripts/docs/published.ts writes their sentences; tests/repo/readme.test.ts and
 * tests/repo/registry-pages.test.ts fail while one differs).
 *
 * **Who changes it, and when.** The maintainer who releases, in the release commit: the commit the tag
 * `v<version>` (package.json's version) will point to. Set it to that version, run `npm run build && node
 * scripts/docs/readme.ts && node scripts/docs/registry-pages.ts`, drop "(unreleased)" from the changelog's top
 * heading (as its rule says), commit, then push the tag; the release workflow publishes what that commit holds. So
 * the docs at a release tag, which the Pulumi Registry reads, name the version that tag publishes. Should the
 * workflow fail before every registry holds the version, set it back in the next commit, until a tag's workflow has
 * published. Nothing else changes it: no script writes it, and nothing shipped reads it.
 *
 * @home the published version (which release the registries hold; the docs' "is it published" sentences)
 */

/**
 * The newest version the release process has published to every registry, e.g. `"0.3.0"`; `undefined` while no
 * version has been (no registry holds pulumi-helpdesk, and there is no release tag).
 */
export const PUBLISHED_VERSION: string | undefined = undefined;
