import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const file = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const ENTRIES = { sdk: file("core/sdk.ts"), host: file("host/index.ts"), index: file("core/index.ts") };

/** Each entry's exported names, and those whose declaration carries no JSDoc. */
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
  return { sdk: read(ENTRIES.sdk), host: read(ENTRIES.host), index: read(ENTRIES.index) };
}

describe("the kernel's entries", () => {
  const entries = readEntries();

  it("document every name the SDK and the host entry export", () => {
    expect(entries.sdk.undocumented).toEqual([]);
    expect(entries.host.undocumented).toEqual([]);
  });

  it("split the kernel: the SDK has no host name, and the full entry is both plus the older constants", () => {
    expect(entries.sdk.names.filter((n) => entries.host.names.includes(n))).toEqual([]);
    for (const host of ["createGovernor", "createExtension", "bindGovernor", "loadConfigLayers", "resolveConfig"])
      expect(entries.sdk.names).not.toContain(host);
    for (const sdk of ["definePlugin", "defineService", "TOOL_STAGE", "TurnEndInfo"]) expect(entries.sdk.names).toContain(sdk);
    const rest = entries.index.names.filter((n) => !entries.sdk.names.includes(n) && !entries.host.names.includes(n));
    expect(rest).toEqual(["TapRecord"]);
  });
});
