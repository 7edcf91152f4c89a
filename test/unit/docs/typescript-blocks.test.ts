/**
 * Every TypeScript block in the docs compiles as written, against the package as a team imports it
 * (`pi-governor`, `pi-governor/host`, `pi-governor/testing`, ...: the sources here, through the same export conditions),
 * with the repository's strict settings. Blocks marked `ts fragment` are excerpts that name things of
 * the reader's own and are left out; "A complete plugin" in docs/plugins.md must not be one.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../helpers/pi-host.ts";

/** The Markdown a user reads: README, docs/, and the plugins' READMEs. */
function userDocs(): string[] {
  const docs = readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  const plugins = readdirSync(join(repoRoot, "plugins"))
    .map((p) => `plugins/${p}/README.md`)
    .filter((p) => {
      try {
        readFileSync(join(repoRoot, p));
        return true;
      } catch {
        return false;
      }
    });
  return ["README.md", ...docs, ...plugins];
}

interface Block {
  doc: string;
  line: number;
  fragment: boolean;
  code: string;
}

/** Every ```ts / ```typescript block with its line and whether it is marked `fragment`. */
function typescriptBlocks(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)(\s+fragment)?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    blocks.push({ doc, line: i + 1, fragment: Boolean(open[2]), code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

// Inside the package (node_modules/.cache is scratch space): `pi-governor` resolves as a self-reference.
const scratch = join(repoRoot, "node_modules", ".cache", "docs-typescript-blocks");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("TypeScript in the docs", () => {
  const blocks = userDocs().flatMap((doc) => typescriptBlocks(doc, readFileSync(join(repoRoot, doc), "utf8")));

  it("'A complete plugin' in docs/plugins.md is a whole block, not a fragment", () => {
    const plugins = readFileSync(join(repoRoot, "docs/plugins.md"), "utf8");
    const at = plugins.split("\n").indexOf("## A complete plugin") + 1;
    const block = blocks.find((b) => b.doc === "docs/plugins.md" && b.line > at);
    expect(block?.fragment).toBe(false);
    expect(block?.code).toMatch(/definePlugin\(/);
  });

  it("every block not marked `ts fragment` compiles against the package, strict", { timeout: 120_000 }, () => {
    const whole = blocks.filter((b) => !b.fragment);
    expect(whole.length).toBeGreaterThan(0);
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const files = whole.map((b, i) => {
      const file = join(scratch, `${b.doc.replace(/[/.]/g, "_")}_${b.line}_${i}.ts`);
      writeFileSync(file, `${b.code}\nexport {};\n`);
      return file;
    });
    const config = ts.getParsedCommandLineOfConfigFile(join(repoRoot, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const program = ts.createProgram(files, { ...config.options, noEmit: true });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.includes(d.file.fileName))
      .map((d) => {
        const block = whole[files.indexOf(d.file!.fileName)]!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${block.doc}:${block.line + 1 + line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
    expect(errors, relative(repoRoot, scratch)).toEqual([]);
  });
});
