/**
 * The rooms of the repository's hand-written TypeScript that ships (docs/design.md "Rooms"), each a top-level folder;
 * sdk/ is generated. Their import boundaries are lint rules (.dependency-cruiser.cjs, `npm run lint`); scripts/docs/homes.ts
 * reads their `@home` docstrings.
 */
export const SHIPPED_ROOMS = [
  "bin",
  "kernel",
  "program",
  "auth",
  "provider",
  "policy",
  "cli",
  "emulator",
  "emulator-client",
] as const;
