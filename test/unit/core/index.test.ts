import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as sdk from "pi-governor";

const file = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const ENTRIES = { sdk: file("core/index.ts"), host: file("host/index.ts"), testing: file("testing/index.ts") };

/** The most runtime names the SDK may export: a plugin author holds it in their head. */
const SDK_RUNTIME_LIMIT = 40;

/** Each entry's exported names (types included), and those whose declaration carries no JSDoc. */
function readEntries() {
  const program = ts.createProgram(Object.values(ENTRIES), {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const read = (file: string) => {
    const symbols = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
    const undocumented = symbols.filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return !(target.declarations ?? []).some((d) => ts.getJSDocCommentsAndTags(d).length > 0);
    });
    return { names: symbols.map((s) => s.name).sort(), undocumented: undocumented.map((s) => s.name) };
  };
  return { sdk: read(ENTRIES.sdk), host: read(ENTRIES.host), testing: read(ENTRIES.testing) };
}

/** The members of a string-literal union type alias `name` declared in `path`. */
function unionMembers(path: string, name: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(file(path), "utf8"), ts.ScriptTarget.Latest, true);
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  if (!alias || !ts.isUnionTypeNode(alias.type)) throw new Error(`${path}: no union ${name}`);
  return alias.type.types.map((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : t.getText()));
}

describe("the SDK, the package's main entry (pi-governor)", () => {
  const entries = readEntries();

  it(`exports at most ${SDK_RUNTIME_LIMIT} runtime names`, () => {
    const runtime = Object.keys(sdk);
    expect(runtime.length, runtime.sort().join(", ")).toBeLessThanOrEqual(SDK_RUNTIME_LIMIT);
  });

  it("holds what a plugin needs: the plugin contract, the stages per hook, the error classes and the result helpers", () => {
    for (const name of [
      "definePlugin",
      "definePreset",
      "defineService",
      "Pipeline",
      "TOOL_STAGE",
      "RESULT_STAGE",
      "CONTEXT_STAGE",
      "GovernorError",
      "TimeoutError",
    ])
      expect(Object.keys(sdk)).toContain(name);
    for (const name of ["success", "failure", "timedOut", "classifyError", "resultMeta", "withResultMeta", "textContent"])
      expect(Object.keys(sdk)).toContain(name);
    for (const type of ["GovernorErrorCode", "ToolWrapper", "TurnEndInfo", "ToolObservation"]) expect(entries.sdk.names).toContain(type);
  });

  it("has no deprecated alias, no host name and no name of the testing kit", () => {
    expect(entries.sdk.names).not.toContain("STAGE");
    expect(entries.sdk.names.filter((n) => entries.host.names.includes(n) || entries.testing.names.includes(n))).toEqual([]);
    for (const host of ["createGovernor", "createExtension", "bindGovernor", "loadConfigLayers", "resolveConfig"])
      expect(entries.sdk.names).not.toContain(host);
  });

  it("documents every name the SDK, the host entry and the testing kit export", () => {
    expect(entries.sdk.undocumented).toEqual([]);
    expect(entries.host.undocumented).toEqual([]);
    expect(entries.testing.undocumented).toEqual([]);
  });
});

describe("GovernorErrorCode", () => {
  const codes = unionMembers("core/errors.ts", "GovernorErrorCode");

  it("is the closed set of the codes the sources raise", () => {
    const used = new Set<string>();
    for (const dir of ["core", "host", "lib", "plugins", "presets", "cli"]) {
      for (const path of ts.sys.readDirectory(file(dir), [".ts"])) for (const m of readFileSync(path, "utf8").matchAll(/"(GOV_[A-Z_]+)"/g)) used.add(m[1]!);
    }
    expect([...used].sort()).toEqual([...codes].sort());
    expect(codes.length).toBe(new Set(codes).size);
  });

  it("is documented once, every code in the table of docs/plugins.md", () => {
    const doc = readFileSync(file("docs/plugins.md"), "utf8");
    for (const code of codes) expect(doc.match(new RegExp(`^\\| \`${code}\` \\|`, "gm"))?.length, code).toBe(1);
  });
});
