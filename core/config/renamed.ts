/**
 * Renamed config keys: a user's file written for an older release keeps working. The old key's value
 * moves to the new key (converted when its shape changed) and the user is told the new spelling; a
 * value under the new spelling in the same file wins over the converted old one. A key may move to
 * another plugin's section (a part of a plugin that became a plugin of its own): {@link upgradeLayer}.
 * A key that was removed is dropped with a note saying what took its place, instead of "unknown key".
 */
import { deepMerge, isPlainObject } from "./merge.ts";

/** Where an old top-level key of a section went. */
export interface RenamedKey {
  /** The new top-level key (of the same section, or of `section`). */
  readonly to: string;
  /** The section the key moved to, when it left its plugin's section (default: the same section). */
  readonly section?: string;
  /**
   * The key stays where it is, and a value for which this returns true is also set at
   * `section`.`to` (unless the same file sets that), without a note: a setting that used to cover
   * a part that became a plugin of its own keeps covering it (`prune.enabled: false` turns folding
   * off too). Needs `section`.
   */
  readonly alsoWhen?: (value: unknown) => boolean;
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
  return `renamed; use ${renamed.section ?? sectionKey}.${renamed.to} (the old spelling still works for now)`;
}

/**
 * Moves every old key of `section` to its new key. A section that is not an object, or has no old
 * keys, is returned as is.
 */
export function upgradeRenamedKeys(sectionKey: string, section: unknown, renamedKeys: RenamedKeys): UpgradedSection {
  if (!isPlainObject(section)) return { section, renamed: [] };
  const oldKeys = Object.keys(section).filter((k) => {
    const rule = Object.hasOwn(renamedKeys, k) ? renamedKeys[k]! : undefined;
    return rule !== undefined && ("removed" in rule || rule.section === undefined);
  });
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

/** What {@link upgradeLayer} did: the file's data in current spelling, and one note per old key (path `section.key`). */
export interface UpgradedLayer {
  data: Record<string, unknown>;
  renamed: Array<{ path: string; message: string }>;
}

/**
 * Moves every old key of every section of one config file to its new place, within its section or
 * into another section (created when the file has none). The new spelling in the same file wins;
 * objects merge key by key. `renamedBySection` maps a section key to its plugin's renamed keys.
 */
export function upgradeLayer(data: Record<string, unknown>, renamedBySection: ReadonlyMap<string, RenamedKeys>): UpgradedLayer {
  const out: Record<string, unknown> = { ...data };
  const renamed: UpgradedLayer["renamed"] = [];
  const moved: Array<{ section: string; to: string; value: unknown }> = [];
  for (const [key, value] of Object.entries(data)) {
    const rules = renamedBySection.get(key);
    if (!rules || !isPlainObject(value)) continue;
    const upgraded = upgradeRenamedKeys(key, value, rules);
    for (const r of upgraded.renamed) renamed.push({ path: `${key}.${r.key}`, message: r.message });
    const section = { ...(upgraded.section as Record<string, unknown>) };
    for (const old of Object.keys(section)) {
      const rule = Object.hasOwn(rules, old) ? rules[old]! : undefined;
      if (!rule || "removed" in rule || !rule.section) continue;
      if (rule.alsoWhen) {
        if (rule.alsoWhen(section[old])) moved.push({ section: rule.section, to: rule.to, value: section[old] });
        continue;
      }
      moved.push({ section: rule.section, to: rule.to, value: rule.convert ? rule.convert(section[old]) : section[old] });
      delete section[old];
      renamed.push({ path: `${key}.${old}`, message: renamedMessage(key, rule) });
    }
    out[key] = section;
  }
  for (const m of moved) {
    const target = isPlainObject(out[m.section]) ? { ...(out[m.section] as Record<string, unknown>) } : {};
    target[m.to] = m.to in target ? deepMerge(m.value, target[m.to]) : m.value;
    out[m.section] = target;
  }
  return { data: out, renamed };
}
