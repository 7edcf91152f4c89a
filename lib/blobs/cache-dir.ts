import { lstat, mkdir, readlink, statfs } from "node:fs/promises";
import { dirname, parse } from "node:path";
import { GovernorError } from "../../core/index.ts";
import { currentUid } from "./open-blob.ts";

/**
 * Linux pseudo file systems (statfs `f_type`): a cache there cannot hold files, and Node's recursive
 * mkdir loops forever under /proc. proc, sysfs, devpts, cgroup, cgroup2, debugfs, securityfs,
 * tracefs, bpf, pstore, configfs, efivarfs, fusectl, binfmt_misc, mqueue, nsfs, selinuxfs.
 */
const PSEUDO_FS = new Map<number, string>([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
  [0x1cd1, "devpts"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x73636673, "securityfs"],
  [0x74726163, "tracefs"],
  [0xcafe4a11, "bpf"],
  [0x6165676c, "pstore"],
  [0x62656570, "configfs"],
  [0xde5e81e4, "efivarfs"],
  [0x65735543, "fusectl"],
  [0x42494e4d, "binfmt_misc"],
  [0x19800202, "mqueue"],
  [0x6e736673, "nsfs"],
  [0xf97cff8c, "selinuxfs"],
]);

/** A private cache directory (the blob cache, recall's index folder) cannot be used safely; the message says why and how to fix it. */
export class BlobDirError extends GovernorError {
  constructor(message: string) {
    super("GOV_BLOB_DIR", "invalid_input", message, {
      recoverable: false,
      agentMessage:
        "The blob cache is unavailable (see the message); the user must fix the directory. Re-run the original tool call, narrowed, instead of reading the stored output.",
    });
  }
}

/** What {@link checkBlobDir} found. */
export type BlobDirState = "ready" | "missing";

/** How messages name a private directory: what it is and the config key that moves it. */
export interface PrivateDirLabel {
  /** "blob cache", "recall index folder". */
  what: string;
  /** The config key the fix names, e.g. "blobs.dir". */
  setting: string;
}

const BLOB_CACHE: PrivateDirLabel = { what: "blob cache", setting: "blobs.dir" };

/** {@link checkPrivateDir} for the blob cache (messages name blobs.dir). */
export function checkBlobDir(dir: string, options: { create: boolean }): Promise<BlobDirState> {
  return checkPrivateDir(dir, options, BLOB_CACHE);
}

/**
 * Checks (and with `create`, creates, mode 0700) a private cache directory (`label` names it in messages). Accepted: a real directory
 * (not a symbolic link), owned by the current user, not writable by group or others. Refused with a
 * {@link BlobDirError} naming the fix: a link, another owner, a group/world-writable mode, a path on
 * a pseudo file system (/proc, /sys, ...), a parent that cannot hold directories. Without `create`, a
 * directory that does not exist yet is "missing" (an empty cache). Owner and mode checks are skipped
 * where the OS has no uids (Windows).
 */
export async function checkPrivateDir(dir: string, options: { create: boolean }, label: PrivateDirLabel): Promise<BlobDirState> {
  const { what, setting } = label;
  await refusePseudoFs(dir, label);
  let s = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new BlobDirError(`${what} ${dir} cannot be inspected (${error.code ?? error.message}); set ${setting} to a private directory`);
  });
  if (!s) {
    if (!options.create) return "missing";
    await makeDirs(dir, label);
    s = await lstat(dir);
  }
  if (s.isSymbolicLink()) {
    const target = await readlink(dir).catch(() => "?");
    throw new BlobDirError(
      `${what} ${dir} is a symbolic link (to ${target}); a link can be redirected by whoever controls it. Remove the link (rm ${JSON.stringify(dir)}) or set ${setting} to the real directory`,
    );
  }
  if (!s.isDirectory()) throw new BlobDirError(`${what} ${dir} is not a directory; remove it or set ${setting} to another path`);
  const uid = currentUid();
  if (uid !== undefined) {
    if (s.uid !== uid) {
      throw new BlobDirError(
        `${what} ${dir} is owned by uid ${s.uid}, not by you (uid ${uid}); another user could read or plant its files. Set ${setting} to a directory of your own (or chown it to yourself)`,
      );
    }
    if ((s.mode & 0o022) !== 0) {
      const mode = (s.mode & 0o777).toString(8).padStart(3, "0");
      throw new BlobDirError(
        `${what} ${dir} is writable by ${(s.mode & 0o002) !== 0 ? "every user" : "its group"} (mode ${mode}); others could plant files in it. Run: chmod 700 ${JSON.stringify(dir)}`,
      );
    }
  }
  return "ready";
}

/** Fails fast for a path on a pseudo file system (Linux), judged by its nearest existing ancestor. */
async function refusePseudoFs(dir: string, { what, setting }: PrivateDirLabel): Promise<void> {
  if (process.platform !== "linux") return;
  const root = parse(dir).root;
  for (let p = dir; ; p = dirname(p)) {
    const info = await statfs(p).catch(() => undefined);
    if (info) {
      const kind = PSEUDO_FS.get(Number(info.type));
      if (kind)
        throw new BlobDirError(`${what} ${dir} is on the ${kind} pseudo file system, which cannot hold files; set ${setting} to a directory on a real disk`);
      return;
    }
    if (p === root) return;
  }
}

/**
 * Creates `dir` and its missing parents one at a time, each mode 0700. Bounded by the path's depth
 * (Node's recursive mkdir can loop forever on file systems that answer ENOENT for a parent that exists).
 */
async function makeDirs(dir: string, { what, setting }: PrivateDirLabel): Promise<void> {
  const missing: string[] = [];
  const root = parse(dir).root;
  for (let p = dir; p !== root; p = dirname(p)) {
    if (
      await lstat(p).then(
        () => true,
        () => false,
      )
    )
      break;
    missing.unshift(p);
  }
  for (const p of missing) {
    try {
      await mkdir(p, { mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue; // another process made it meanwhile; the checks that follow judge it
      throw new BlobDirError(
        `cannot create the ${what} ${dir}: mkdir ${p} failed (${code ?? (error as Error).message}); set ${setting} to a writable private directory`,
      );
    }
  }
}
