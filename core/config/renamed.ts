/**
 * Renamed config keys: a user's file written for an older release keeps working. The old key's value
 * moves to the new key (converted when its shape changed) and the user is told the new spelling; a
 * value under the new spelling in the same file wins over the converted old one. A key that was
 * removed is dropped with a note saying what took its place, instead of "unknown key".
 */
import { deepMerge, isPlainObject } from "./merge.ts";

/** Where an old top-level key of a section went. */
export interface RenamedKey {
  /** The new top-level key of the same section. */
  readonly to: string;
  /**
   * The old value in the new key's shape, when the shape changed too (default: the value as is).
   * Gets the old value only; it is merged under whatever the file already sets at `to`.
   */
  readonly convert?: (old: unknown) => unknown;
}

/** An old top-level key that no longer has a place: its value is ignored, and the note says why. */
export interface RemovedKey {
  /** What replaced it, e.g. "recall writes through the blobs plugin's store; set blobs.dir". */
  readonly removed: string;
}

/** Old key -> where it went (or why it is gone), per plugin section. */
export type RenamedKeys = Readonly<Record<string, RenamedKey | RemovedKey>>;

/** What {@link upgradeRenamedKeys} did: the section in current spelling, and one note per old key. */
export interface UpgradedSection {
  section: unknown;
  /** `{ key, message }` per old key found (key = the old top-level key). */
  renamed: Array<{ key: string; message: string }>;
}

/** The message a renamed key gets: what to write instead. */
export function renamedMessage(sectionKey: string, renamed: RenamedKey): string {
  return `renamed; use ${sectionKey}.${renamed.to} (the old spelling still works for now)`;
}

/**
 * Moves every old key of `section` to its new key. A section that is not an object, or has no old
 * keys, is returned as is.
 */
export function upgradeRenamedKeys(sectionKey: string, section: unknown, renamedKeys: RenamedKeys): UpgradedSection {
  if (!isPlainObject(section)) return { section, renamed: [] };
  const oldKeys = Object.keys(section).filter((k) => Object.hasOwn(renamedKeys, k));
  if (!oldKeys.length) return { section, renamed: [] };
  const out: Record<string, unknown> = { ...section };
  const renamed: UpgradedSection["renamed"] = [];
  for (const key of oldKeys) {
    const rule = renamedKeys[key]!;
    if ("removed" in rule) {
      delete out[key];
      renamed.push({ key, message: `removed and ignored: ${rule.removed}` });
      continue;
    }
    const value = rule.convert ? rule.convert(out[key]) : out[key];
    delete out[key];
    // The new spelling in the same file wins; objects merge key by key.
    out[rule.to] = rule.to in out ? deepMerge(value, out[rule.to]) : value;
    renamed.push({ key, message: renamedMessage(sectionKey, rule) });
  }
  return { section: out, renamed };
}
