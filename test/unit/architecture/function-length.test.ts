/**
 * Functions stay short enough to read at once: in the source folders no function (declaration,
 * method, accessor, constructor, arrow or function expression; nested ones counted on their own) is
 * longer than {@link MAX_LINES} lines, except the few on {@link ALLOWED}, each with its reason.
 * Lines run from the function's first token (its JSDoc not counted) to its closing brace.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Folders whose functions are measured (tests and the testing kit are outside). */
const SOURCE_DIRS = ["core", "host", "lib", "plugins", "presets", "cli"];
/** Longest function, in lines, that needs no place on the allowlist. */
const MAX_LINES = 80;
/** At most this many functions may stay longer, each with a reason (and a comment at the function). */
const MAX_ALLOWED = 5;

/** `path:name` of each function allowed over {@link MAX_LINES}, with why it stays whole. */
const ALLOWED: Record<string, string> = {
  "lib/redact/escapes.ts:unescapedView": "one pass of the hot scanner under every redaction of escaped text; its buffers and cursors stay locals of one loop",
};

interface LongFunction {
  key: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The name a reader would search for: the declaration's own, else the variable, property or class member it is. */
function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (ts.isConstructorDeclaration(node)) return `${classNameOf(node)}.constructor`;
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) {
    const own = named.name.text;
    return ts.isClassLike(node.parent) ? `${classNameOf(node)}.${own}` : own;
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return `${classNameOf(parent)}.${parent.name.text}`;
  if (ts.isCallExpression(parent)) return `${parent.expression.getText().slice(0, 40)}(callback)`;
  return "(anonymous)";
}

function classNameOf(member: ts.Node): string {
  const cls = member.parent as ts.ClassLikeDeclaration;
  return cls.name?.text ?? "(class)";
}

/** The functions of one file longer than `max` lines, as `path:name`. */
function functionsOver(path: string, text: string, max: number): LongFunction[] {
  const found: LongFunction[] = [];
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > max) found.push({ key: `${path}:${nameOf(node)}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function of the source folders longer than `max` lines. */
function longFunctions(root: string, max: number): LongFunction[] {
  return SOURCE_DIRS.flatMap((dir) =>
    sourceFiles(join(root, dir)).flatMap((file) => functionsOver(relative(root, file).split("\\").join("/"), readFileSync(file, "utf8"), max)),
  );
}

describe("function length in the source folders", () => {
  const long = longFunctions(REPO_ROOT, MAX_LINES);

  it(`has no function over ${MAX_LINES} lines outside the allowlist`, () => {
    expect(long.filter((f) => !(f.key in ALLOWED)).map((f) => `${f.key} (${f.lines} lines)`)).toEqual([]);
  });

  it(`allows at most ${MAX_ALLOWED}, each still long and with a reason`, () => {
    expect(Object.keys(ALLOWED).length).toBeLessThanOrEqual(MAX_ALLOWED);
    for (const [key, reason] of Object.entries(ALLOWED)) expect(reason.length, key).toBeGreaterThan(10);
    // An entry whose function got short (or renamed) goes: the list names only what is still long.
    const stale = Object.keys(ALLOWED).filter((key) => !long.some((f) => f.key === key));
    expect(stale).toEqual([]);
  });

  it("measures what it claims: 81 lines is found and 80 is not, nested functions and methods by their own names", () => {
    const lines = (n: number) => "  x();\n".repeat(n - 2);
    const text = [
      `/** JSDoc is not counted */\nfunction eighty() {\n${lines(80)}}`,
      `export function outer() {\n  const inner = () => {\n${lines(81)}  };\n}`,
      `class Box {\n  run() {\n${lines(81)}  }\n}`,
      `const plugin = { apply(p) {\n${lines(81)}} };`,
    ].join("\n");
    expect(functionsOver("t.ts", text, MAX_LINES)).toEqual([
      { key: "t.ts:outer", lines: 83 },
      { key: "t.ts:inner", lines: 81 },
      { key: "t.ts:Box.run", lines: 81 },
      { key: "t.ts:apply", lines: 81 },
    ]);
  });
});
