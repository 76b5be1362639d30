/**
 * Which folders the token cache trusts with the tokens (`auth/token-cache.ts` keeps its entries in one): a private
 * folder of this user's, mode 0700, that is no symbolic link and sits inside no folder another user may change. This
 * module decides; the token cache reports what it refused, as a `TokenCacheError` `cache_inaccessible`.
 * @home which folders the token cache trusts (its own, not a link, not inside a folder others may change)
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { syncDirectory } from "../kernel/fsync.js";

/** Mode of a private folder: only its owner may list or enter it. */
export const DIRECTORY_MODE = 0o700;

/**
 * Whether modes are enforced (this folder's 0700, the token cache's files' 0600): not on Windows, where Node.js
 * reports every writable file as 0666 (there is no owner/group/other there) and chmod can only set or clear the
 * read-only attribute, so the check would fail on every open and each "fix" would be a no-op (`fchmod` of a handle
 * opened for reading, at that). Privacy there comes from the folder's access list: the default location is under the
 * user's profile (`homedir()`, `%USERPROFILE%`), which only its owner and administrators can read.
 */
export const ENFORCE_MODES = process.platform !== "win32";

/** Why a folder is not trusted, refused before any file in it is touched: what is wrong, and what to do. */
export interface DirectoryRefusal {
  /** What is wrong, completing a sentence that starts with the folder's path ("… is a symbolic link, …"). */
  readonly what: string;
  /** What to do instead, a verb phrase ("use a directory of your own"). */
  readonly remedy: string;
}

/**
 * Creates (when asked) the folder, checks that it is a private folder of this user's, and enforces its mode 0700.
 *
 * Refused (never chmodded): a symbolic link (the chmod and the files would land on whatever it points at), a folder
 * another user owns (they could read or swap the files), a path that is not a directory. A folder of this user's with
 * a wider mode is tightened to 0700 when it holds only its owner's files (`ownFile`), or nothing: it is that owner's
 * own folder (one created by an older version, or by a person with `mkdir` under umask 022), the chmod changes only
 * what other users may do with the user's own tokens, and failing instead would stop every `pulumi up` over a mode. A
 * wider folder that holds anything else (say `$HOME`, named as the cache's folder) is refused: its mode is the
 * person's choice, not the cache's. So is a folder inside a folder that someone else may change ({@link unsafeParent}).
 * Each folder it creates is fsynced into its parent (`kernel/fsync.ts`).
 *
 * @param dir the folder
 * @param options `create`: whether to create it when missing; `ownFile`: whether a name in it is one of the files its
 *   owner (the token cache) puts there
 * @returns true when the folder is trusted (and now private), false when it does not exist and `create` is false, or
 *   the refusal
 * @throws the file system's error when the folder cannot be created, examined or made private (mode 0700)
 */
export function secureDirectory(
  dir: string,
  options: { create: boolean; ownFile: (name: string) => boolean },
): boolean | DirectoryRefusal {
  const first = options.create ? mkdirSync(dir, { recursive: true, mode: DIRECTORY_MODE }) : undefined;
  if (first !== undefined) {
    // Each directory created, from `dir` up to the first one, is a new name in its parent.
    const top = resolve(first);
    for (let created = resolve(dir); ; created = dirname(created)) {
      syncDirectory(dirname(created));
      if (created === top || dirname(created) === created) break;
    }
  }
  const stats = lstatSync(resolve(dir), { throwIfNoEntry: false }); // resolve: `link/` would follow the link
  if (!stats) return false;
  if (stats.isSymbolicLink())
    return {
      what: "is a symbolic link, and the cache follows none (its files and mode 0700 would land on the link's target)",
      remedy: "replace the link with a directory of your own",
    };
  if (!stats.isDirectory()) return { what: "is not a directory", remedy: "move it away" };
  // process.getuid is absent on Windows, where the folder's access list, not an owner id, makes it private.
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid)
    return {
      what: `belongs to another user (uid ${stats.uid}, not yours: ${uid}), who could read or replace the tokens in it`,
      remedy: "use a directory of your own",
    };
  const parent = uid === undefined ? undefined : unsafeParent(dir, uid);
  if (parent)
    return {
      what: `is inside ${parent.path}, which ${parent.who}: they could rename the cache folder and put another (or a symbolic link) in its place`,
      remedy: "use a folder inside folders only you or root can change",
    };
  if (ENFORCE_MODES && (stats.mode & 0o777) !== DIRECTORY_MODE) {
    const others = readdirSync(dir).filter((name) => !options.ownFile(name));
    if (others.length > 0) {
      const wide = (stats.mode & 0o777).toString(8);
      return {
        what: `is mode 0${wide} and holds other files (${others.length}, such as ${JSON.stringify(others[0])}), so it is not the cache's own folder to make private`,
        remedy: "point it at a folder of its own",
      };
    }
    chmodSync(dir, DIRECTORY_MODE);
  }
  return true;
}

/**
 * The first folder above `dir` in which another user could rename or replace what leads to it: one that others may
 * write to without the sticky bit (with it, as `/tmp` has, only an entry's owner may rename it), or one that belongs
 * to another user than `uid` and root. Both the path as named and its real path (symbolic links resolved) are
 * checked, from `dir`'s parent up to `/`. Group write is allowed: a user's private group is common.
 *
 * @param dir the folder (it exists); @param uid this process's user id
 * @returns the folder and why it is unsafe (for the message), or undefined when every folder above is safe
 */
function unsafeParent(dir: string, uid: number): { path: string; who: string } | undefined {
  const named = resolve(dir);
  const folders = new Set<string>();
  for (const start of [named, realpathSync(named)]) {
    for (let folder = dirname(start); ; folder = dirname(folder)) {
      folders.add(folder);
      if (dirname(folder) === folder) break;
    }
  }
  for (const folder of folders) {
    const stats = statSync(folder);
    const mode = stats.mode & 0o7777;
    if ((mode & 0o002) !== 0 && (mode & 0o1000) === 0)
      return { path: folder, who: `every user may write to (mode 0${(mode & 0o777).toString(8)}, no sticky bit)` };
    if (stats.uid !== uid && stats.uid !== 0)
      return { path: folder, who: `belongs to another user (uid ${stats.uid})` };
  }
  return undefined;
}
