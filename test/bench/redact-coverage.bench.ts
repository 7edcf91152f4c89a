/**
 * Redaction coverage against a maintained rule set: pi-governor's rules and secretlint's recommended
 * preset (`@secretlint/secretlint-rule-preset-recommend`, a devDependency used only here) on the same
 * corpus. Rows:
 * - per kind of secret (redact-secrets.ts, each in the context it is printed in): how many each
 *   finds, and by which rule. Ours "finds" a secret when no 16-character piece of it is left;
 *   secretlint when a report's range covers a piece of it.
 * - matches on real code and logs, none of them live secrets (this repository's node_modules, its
 *   `git log -p`, the system's logs): per rule, with samples to judge.
 * - CPU ms per MB on that real text, and secretlint's rules on the adversarial corpus (ours are in
 *   redact.bench.ts).
 * Target: ours finds every planted kind that either finds (recorded, not a ratio).
 */
import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { extname, join } from "node:path";
import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { Redactor } from "../../lib/redact/index.ts";
import type { BenchSuite } from "./harness.ts";
import { adversarialCorpus } from "./redact-corpus.ts";
import { plantedSecrets } from "./redact-secrets.ts";

const ROOT = join(import.meta.dirname, "..", "..");
/** Real code read from node_modules, and logs, in characters. */
const CODE_CHARS = 24 * 1024 * 1024;
const LOG_CHARS = 8 * 1024 * 1024;
const CODE_EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".md", ".json", ".d.ts", ".map", ".yml", ".yaml", ".txt"]);

interface Doc {
  path: string;
  text: string;
}

/** Files under node_modules in a fixed order (sorted walks), at most 512 K characters per package, up to `limit` in all. */
function codeDocs(limit: number): Doc[] {
  const docs: Doc[] = [];
  let total = 0;
  const sorted = (dir: string) => {
    try {
      return readdirSync(dir).sort();
    } catch {
      return [];
    }
  };
  const walk = (dir: string, budget: { chars: number }): void => {
    for (const name of sorted(dir)) {
      if (total >= limit || budget.chars <= 0) return;
      const path = join(dir, name);
      const s = lstatSync(path);
      if (s.isDirectory()) walk(path, budget);
      else if (s.isFile() && s.size < 2 * 1024 * 1024 && CODE_EXTENSIONS.has(extname(name))) {
        const text = readFileSync(path, "utf8");
        docs.push({ path: path.slice(ROOT.length + 1), text });
        total += text.length;
        budget.chars -= text.length;
      }
    }
  };
  const modules = join(ROOT, "node_modules");
  for (const name of sorted(modules)) {
    // secretlint's own packages hold its example secrets: not real code to judge either by.
    if (name === "@secretlint" || name.startsWith(".")) continue;
    const packages = name.startsWith("@") ? sorted(join(modules, name)).map((p) => join(modules, name, p)) : [join(modules, name)];
    for (const dir of packages) if (total < limit) walk(dir, { chars: 512 * 1024 });
  }
  return docs;
}

/**
 * This repository's history with diffs (leaving out the tests and the redaction code, which plant
 * secrets on purpose), the system's package logs and npm's debug logs: what `bash` prints in a session.
 */
function logDocs(limit: number): Doc[] {
  const docs: Doc[] = [];
  try {
    const log = execFileSync(
      "git",
      [
        "-C",
        ROOT,
        "log",
        "-p",
        "--no-color",
        "-n",
        "600",
        "--",
        ".",
        ":(exclude)test",
        ":(exclude)lib/redact",
        ":(exclude)plugins/redact",
        ":(exclude)docs/security.md",
      ],
      { maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
    );
    docs.push({ path: "git log -p", text: log.slice(0, limit / 2) });
  } catch {
    // no git history (an unpacked tarball): the system logs only
  }
  // npm's own logs are under the real home (the bench runs with a throwaway HOME).
  const logDirs = ["/var/log", "/var/log/apt", join(userInfo().homedir, ".npm", "_logs")];
  for (const dir of logDirs) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/\.log(\.\d+)?$/.test(name)) continue;
      try {
        const text = readFileSync(join(dir, name), "utf8");
        docs.push({ path: join(dir, name), text: text.slice(0, 2 * 1024 * 1024) });
      } catch {
        // unreadable
      }
    }
  }
  let total = 0;
  return docs.filter((d) => (total += d.text.length) <= limit || d === docs[0]);
}

const secretlintConfig = { rules: [{ id: recommended.meta.id, rule: recommended, options: {} }] };
const shortRule = (id: string) => id.replace("@secretlint/secretlint-rule-", "");

async function secretlint(
  text: string,
  config: { rules: Array<{ id: string; rule: unknown; options: object }> } = secretlintConfig,
): Promise<Array<{ rule: string; range: readonly [number, number] }>> {
  const result = await lintSource({
    source: { filePath: "/tool-output.txt", content: text, contentType: "text", ext: ".txt" },
    options: { config: config as never },
  });
  return result.messages.map((m) => ({ rule: shortRule(m.ruleId), range: m.range }));
}

/** The 16-character pieces of `secret` that stand in `text` (a key wrapped over lines is found line by line). */
function pieces(text: string, secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 16 <= secret.length; i += 16) {
    const piece = secret.slice(i, i + 16);
    if (text.includes(piece)) out.push(piece);
  }
  if (!out.length && text.includes(secret)) out.push(secret);
  return out;
}

/** CPU milliseconds of an async function. */
async function cpuMs(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const suite: BenchSuite = async (report) => {
  const ours = new Redactor();
  // Kinds of true secrets.
  const planted = plantedSecrets(3);
  const byKind = new Map<string, { total: number; ours: number; oursRules: Set<string>; theirs: number; theirRules: Set<string> }>();
  for (const p of planted) {
    const row = byKind.get(p.kind) ?? { total: 0, ours: 0, oursRules: new Set(), theirs: 0, theirRules: new Set() };
    byKind.set(p.kind, row);
    row.total++;
    const parts = pieces(p.text, p.secret);
    const { text, counts } = ours.redactWithReport(p.text);
    if (parts.every((piece) => !text.includes(piece))) {
      row.ours++;
      for (const rule of Object.keys(counts)) row.oursRules.add(rule);
    }
    const spans = parts.map((piece) => [p.text.indexOf(piece), p.text.indexOf(piece) + piece.length] as const);
    const hits = (await secretlint(p.text)).filter((m) => spans.some(([a, b]) => m.range[0] < b && m.range[1] > a));
    if (hits.length) {
      row.theirs++;
      for (const h of hits) row.theirRules.add(h.rule);
    }
  }
  let oursFound = 0;
  let theirsFound = 0;
  let total = 0;
  for (const [kind, row] of byKind) {
    oursFound += row.ours;
    theirsFound += row.theirs;
    total += row.total;
    report({
      name: `found: ${kind}`,
      value: `ours ${row.ours}/${row.total}${row.oursRules.size ? ` (${[...row.oursRules].join(", ")})` : ""}; secretlint ${row.theirs}/${row.total}${row.theirRules.size ? ` (${[...row.theirRules].join(", ")})` : ""}`,
      pass: row.ours >= row.theirs && row.ours === row.total,
    });
  }
  report({ name: `found: all ${byKind.size} kinds`, value: `ours ${oursFound}/${total}; secretlint ${theirsFound}/${total}`, pass: oursFound >= theirsFound });

  // Matches on real code and logs.
  for (const [label, docs] of [
    ["real code (node_modules)", codeDocs(CODE_CHARS)],
    ["logs (git log -p, system logs)", logDocs(LOG_CHARS)],
  ] as const) {
    const chars = docs.reduce((n, d) => n + d.text.length, 0);
    const mb = docs.reduce((n, d) => n + Buffer.byteLength(d.text, "utf8"), 0) / 1e6;
    const oursFlags = new Map<string, string[]>();
    const theirFlags = new Map<string, string[]>();
    const oursMs = await cpuMs(() => {
      for (const d of docs) {
        const { text, counts } = ours.redactWithReport(d.text);
        for (const [rule, n] of Object.entries(counts)) {
          const list = oursFlags.get(rule) ?? [];
          oursFlags.set(rule, list);
          const at = text.indexOf(`[redacted:${rule}]`);
          for (let i = 0; i < n; i++) list.push(`${d.path}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 30 + rule.length))}`);
        }
      }
    });
    let theirMs = 0;
    for (const d of docs) {
      let found: Awaited<ReturnType<typeof secretlint>> = [];
      theirMs += await cpuMs(async () => {
        found = await secretlint(d.text);
      });
      for (const m of found) {
        const list = theirFlags.get(m.rule) ?? [];
        theirFlags.set(m.rule, list);
        list.push(`${d.path}: ${JSON.stringify(d.text.slice(Math.max(0, m.range[0] - 30), Math.min(m.range[1], m.range[0] + 60)))}`);
      }
    }
    const describe = (flags: Map<string, string[]>) =>
      [...flags.entries()]
        .sort((a, b) => b[1].length - a[1].length)
        .map(([rule, list]) => `${rule} ${list.length} [${list.slice(0, 3).join(" | ")}]`)
        .join("; ") || "none";
    const count = (flags: Map<string, string[]>) => [...flags.values()].reduce((n, l) => n + l.length, 0);
    report({
      name: `matches on ${label}, ${docs.length} files, ${(chars / 1e6).toFixed(1)} M chars: ours`,
      value: `${count(oursFlags)}: ${describe(oursFlags)}`,
    });
    report({ name: `matches on ${label}: secretlint`, value: `${count(theirFlags)}: ${describe(theirFlags)}` });
    report({
      name: `CPU ms per MB on ${label}`,
      value: `ours ${(oursMs / mb).toFixed(1)}, secretlint ${(theirMs / mb).toFixed(1)}`,
      ratio: theirMs / Math.max(oursMs, 0.001),
      note: "x ours (secretlint / ours)",
    });
  }

  // secretlint's rules, each alone, on the adversarial corpus (64 KB items: some are slow).
  const corpus = adversarialCorpus(64 * 1024);
  const rows: Array<{ rule: string; worst: number; label: string }> = [];
  for (const rule of recommended.rules) {
    const config = { rules: [{ id: rule.meta.id, rule, options: {} }] };
    let worst = 0;
    let label = "";
    for (const item of corpus) {
      const ms = await cpuMs(() => secretlint(item.text, config));
      const perMb = ms / (item.text.length / 1e6);
      if (perMb > worst) [worst, label] = [perMb, item.label];
    }
    rows.push({ rule: shortRule(rule.meta.id), worst, label });
  }
  rows.sort((a, b) => b.worst - a.worst);
  report({
    name: `secretlint rules alone, worst of ${corpus.length} adversarial inputs (CPU ms per MB)`,
    value: rows.map((r) => `${r.rule} ${r.worst.toFixed(0)} (${r.label})`).join("; "),
  });
};

export default suite;
