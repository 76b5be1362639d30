/**
 * The Mach-O steps of the darwin executable (scripts/release/executable.ts): Node.js's own signature removed before
 * postject injects the blob, an ad hoc signature after, and the check of that signature. Node's SEA docs do the same
 * on macOS with `codesign --remove-signature`, postject, `codesign --sign -`.
 *
 * The signer: on macOS, Apple's `codesign`; elsewhere quill (github.com/anchore/quill, Go), built by scripts/setup.sh
 * from scripts/release/quill (`$HELPDESK_QUILL`). quill rather than the `apple-codesign` crate's `rcodesign`: both
 * sign ad hoc without a certificate, but quill builds in ~110 s from empty Go caches on this 2-core machine with the Go
 * the project already needs, where `rcodesign` is a Rust build of several hundred crates. quill has no `verify`
 * command: {@link checkAdHocSignature} takes the page digests that `quill describe` reads from the signature and
 * hashes the pages itself, which is what a verifier does for an ad hoc signature (there is no certificate to check).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { unsign } from "macho-unsign";

/** Where quill is (scripts/lib/env.sh `HELPDESK_QUILL`, which scripts/release.sh and scripts/test.sh export). */
function quill(): string {
  const path = process.env.HELPDESK_QUILL;
  if (!path || !existsSync(path))
    throw new Error(
      `quill, the Mach-O signer, is missing${path ? ` at ${path}` : " (HELPDESK_QUILL is not set)"}: run scripts/setup.sh --release (npm run release does), or scripts/setup.sh --test`,
    );
  return path;
}

/**
 * Removes a Mach-O file's code signature (its `LC_CODE_SIGNATURE` and the signature's bytes), with macho-unsign, a
 * small library that does this one thing (thin and fat files). postject 1.0.0-alpha.6 would drop it too (measured:
 * the same bytes with or without this step), but Node's docs remove it first and the build should not depend on
 * that side effect of postject's version.
 *
 * @param file a Mach-O file; changed in place
 * @returns whether it had a signature
 * @throws Error when the file is not Mach-O
 */
export function removeMachoSignature(file: string): boolean {
  const unsigned = unsign(readFileSync(file));
  if (!unsigned) return false;
  writeFileSync(file, Buffer.from(unsigned));
  return true;
}

/**
 * Signs a Mach-O file ad hoc (no certificate: a code directory of page hashes, what macOS needs to run an arm64 file and
 * accepts for x86-64): `codesign --sign -` on macOS, `quill sign --ad-hoc` elsewhere.
 *
 * @param file the Mach-O file, unsigned; changed in place
 * @param identifier the code directory's identifier (the executable's name)
 * @throws Error when the signer is missing or fails
 */
export function signAdHoc(file: string, identifier: string): void {
  if (process.platform === "darwin")
    execFileSync("codesign", ["--sign", "-", "--force", "--identifier", identifier, file], { stdio: "pipe" });
  else execFileSync(quill(), ["sign", "--ad-hoc", "--identity", identifier, "--quiet", file], { stdio: "pipe" });
}

/** One page digest as `quill describe -o json` prints it. */
interface Digest {
  offset: number;
  algorithm: string;
  value: string;
}

/** What {@link checkAdHocSignature} found. */
export interface AdHocSignature {
  /** the code directory's identifier */
  identifier: string;
  /** how many pages (4096 bytes) the signature hashes */
  pages: number;
  /** where the signed bytes end and the signature begins (bytes) */
  codeLimit: number;
}

/**
 * Checks that a Mach-O file has a valid ad hoc signature. On macOS: `codesign --verify --strict`. Elsewhere: `quill
 * describe` reads the signature (one code directory, flags `adhoc`, no certificate), and each of its SHA-256 page
 * digests must be the hash of that page of the file (4096 bytes, the last one up to the signature).
 *
 * @param file the signed Mach-O file
 * @returns the identifier, the page count and the code limit (on macOS: pages and code limit 0, codesign says no more)
 * @throws Error naming the first page whose digest differs, or saying what is missing, when the signature is not valid
 */
export function checkAdHocSignature(file: string): AdHocSignature {
  if (process.platform === "darwin") {
    execFileSync("codesign", ["--verify", "--strict", file], { stdio: "pipe" });
    const shown = execFileSync("codesign", ["--display", "--verbose=2", file], { encoding: "utf8", stdio: "pipe" });
    return { identifier: /^Identifier=(.*)$/m.exec(shown)?.[1] ?? "", pages: 0, codeLimit: 0 };
  }
  const described = JSON.parse(
    execFileSync(quill(), ["describe", "--output", "json", "--quiet", file], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    }),
  ) as Array<{
    superBlob?: {
      offset: number;
      codeDirectories: Array<{ id: string; flags: { description: string }; pageDigests: Digest[] }>;
      signatures?: Array<{ certificates: unknown[] | null }>;
    };
  }>;
  const blob = described[0]?.superBlob;
  if (described.length !== 1 || !blob) throw new Error(`${file} is not signed (quill describe finds no signature)`);
  const [directory, ...others] = blob.codeDirectories;
  if (!directory || others.length > 0)
    throw new Error(`${file}: expected one code directory, quill found ${others.length + (directory ? 1 : 0)}`);
  if (directory.flags.description !== "adhoc")
    throw new Error(`${file}: the code directory's flags are "${directory.flags.description}", not "adhoc"`);
  if (blob.signatures?.some((signature) => (signature.certificates ?? []).length > 0))
    throw new Error(`${file}: an ad hoc signature carries no certificate, this one does`);
  const bytes = readFileSync(file);
  const codeLimit = blob.offset;
  const pages = Math.ceil(codeLimit / 4096);
  if (directory.pageDigests.length !== pages)
    throw new Error(
      `${file}: the signature hashes ${directory.pageDigests.length} pages, the file has ${pages} before it`,
    );
  for (const [index, digest] of directory.pageDigests.entries()) {
    const page = bytes.subarray(index * 4096, Math.min((index + 1) * 4096, codeLimit));
    const actual = createHash("sha256").update(page).digest("hex");
    if (digest.algorithm !== "sha256" || digest.offset !== index * 4096 || digest.value !== actual)
      throw new Error(
        `${file}: page ${index} (offset ${index * 4096}) has SHA-256 ${actual}, its signature says ${digest.algorithm} ${digest.value}: the file was changed after it was signed`,
      );
  }
  return { identifier: directory.id, pages, codeLimit };
}

/**
 * A section of a 64-bit Mach-O file, found through its load commands (`LC_SEGMENT_64`), as the loader and Node's SEA
 * (`getsectiondata`) find it. Read here rather than with a library: the npm registry's Mach-O parsers are unmaintained,
 * and the walk is a dozen lines.
 *
 * @param macho the file's bytes (thin, little-endian: `0xfeedfacf`)
 * @param segment e.g. `__NODE_SEA`
 * @param section e.g. `__NODE_SEA_BLOB`
 * @returns the section's bytes, or undefined when there is no such section
 * @throws Error when the file is not a thin 64-bit little-endian Mach-O file
 */
export function machoSection(macho: Buffer, segment: string, section: string): Buffer | undefined {
  if (macho.readUInt32LE(0) !== 0xfeedfacf) throw new Error("not a 64-bit little-endian Mach-O file");
  const name = (at: number): string => macho.toString("latin1", at, at + 16).replace(/\0+$/, "");
  let at = 32; // mach_header_64
  for (let command = 0; command < macho.readUInt32LE(16); command++) {
    const [kind, size] = [macho.readUInt32LE(at), macho.readUInt32LE(at + 4)];
    if (kind === 0x19 && name(at + 8) === segment) {
      // segment_command_64 is 72 bytes, then nsects section_64 records of 80: sectname, segname, addr, size, offset.
      for (let i = 0; i < macho.readUInt32LE(at + 64); i++) {
        const record = at + 72 + 80 * i;
        if (name(record) !== section) continue;
        const offset = macho.readUInt32LE(record + 48);
        return macho.subarray(offset, offset + Number(macho.readBigUInt64LE(record + 40)));
      }
    }
    at += size;
  }
  return undefined;
}
