/**
 * The project's import graph and the layering rules it must keep. Every relative import counts:
 * `import` and `export ... from` (type-only ones too: they couple modules the same way for a reader
 * and for tsc), `import()` and `jiti.import()` with a string literal. Paths are repo-relative with `/`.
 *
 * Layers, top to bottom: bin -> cli -> presets -> plugins | host -> lib -> core. A layer imports only
 * layers below it (cli may import anything under it, presets' CLI helpers included); plugins and the
 * host never import each other; see docs/architecture.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Top-level folders whose files form the graph (tests are outside it). */
export const SCANNED_DIRS = ["core", "host", "lib", "cli", "plugins", "presets", "testing", "bin"] as const;

/** One import of one file. */
export interface ImportEdge {
  /** Importing file, repo-relative. */
  from: string;
  /** Imported file, repo-relative (as written, resolved against `from`). */
  to: string;
  kind: "static" | "type" | "dynamic";
  /** 1-based line of the import. */
  line: number;
  /**
   * The exported names taken (`default` for a default import); absent when the import takes all of
   * them (`export *`, `import * as`, `import()`).
   */
  names?: readonly string[];
}

/** One import as {@link parseImports} reads it. */
export interface ParsedImport {
  specifier: string;
  kind: ImportEdge["kind"];
  line: number;
  /** See {@link ImportEdge.names}. */
  names?: readonly string[];
}

/** The relative module specifiers a file imports, with kind and line. */
export function parseImports(fileName: string, text: string): ParsedImport[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith(".mjs") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: ParsedImport[] = [];
  const add = (node: ts.Node, literal: ts.Expression | undefined, kind: ImportEdge["kind"], names?: readonly string[]) => {
    if (!literal || !ts.isStringLiteralLike(literal) || !literal.text.startsWith(".")) return;
    found.push({ specifier: literal.text, kind, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, ...(names ? { names } : {}) });
  };
  // The exported name of each specifier (`{ a as b }` takes `a`).
  const specified = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) => elements.map((e) => (e.propertyName ?? e.name).text);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      const bindings = clause?.namedBindings;
      const names = !clause
        ? []
        : bindings && ts.isNamespaceImport(bindings)
          ? undefined
          : [...(clause.name ? ["default"] : []), ...(bindings && ts.isNamedImports(bindings) ? specified(bindings.elements) : [])];
      add(node, node.moduleSpecifier, typeOnly ? "type" : "static", names);
    } else if (ts.isExportDeclaration(node)) {
      const names = node.exportClause && ts.isNamedExports(node.exportClause) ? specified(node.exportClause.elements) : undefined;
      add(node, node.moduleSpecifier, node.isTypeOnly ? "type" : "static", names);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, "static");
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImportCall = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isLoaderImport = ts.isPropertyAccessExpression(callee) && callee.name.text === "import"; // jiti.import("../cli/main.ts")
      if (isImportCall || isLoaderImport) add(node, node.arguments[0], "dynamic");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      // type X = import("./y.ts").Z takes Z (of Z.W, the leftmost name).
      let q: ts.EntityName | undefined = node.qualifier;
      while (q && ts.isQualifiedName(q)) q = q.left;
      add(node, node.argument.literal as ts.Expression, "type", q ? [q.text] : undefined);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every .ts/.mjs file under the scanned folders of `root`, repo-relative. */
export function listSourceFiles(root: string, dirs: readonly string[] = SCANNED_DIRS): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        if (name !== "node_modules") walk(full);
      } else if (/\.(ts|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(relative(root, full).split("\\").join("/"));
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d));
  return out.sort();
}

/** The edges of the files under `root` (all of {@link listSourceFiles}). */
export function scanImports(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of listSourceFiles(root)) {
    for (const imp of parseImports(file, readFileSync(join(root, file), "utf8"))) {
      edges.push({
        from: file,
        to: posix.normalize(posix.join(posix.dirname(file), imp.specifier)),
        kind: imp.kind,
        line: imp.line,
        ...(imp.names ? { names: imp.names } : {}),
      });
    }
  }
  return edges;
}

/**
 * The import cycles: one per strongly connected component of more than one file (or a file that
 * imports itself), each as a path `a -> b -> ... -> a` starting at the component's first file.
 */
export function findCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const list = next.get(e.from) ?? next.set(e.from, []).get(e.from)!;
    if (!list.includes(e.to)) list.push(e.to);
  }
  for (const list of next.values()) list.sort();
  // Tarjan's strongly connected components, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; child: number }> = [{ node: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1]!.node, Math.min(low.get(work[work.length - 1]!.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (next.get(member) ?? []).includes(member);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.map((component) => cyclePath(component, next)).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A shortest cycle through the component's first file (breadth-first inside the component). */
function cyclePath(component: string[], next: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const child of next.get(node) ?? []) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = parent.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!parent.has(child)) {
        parent.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start];
}

/** The layer a file belongs to, with the folder that is its unit (a plugin's or a preset's folder). */
export function layerOf(file: string): { layer: string; unit: string } {
  const [top = "", second = ""] = file.split("/");
  if (top === "plugins" || top === "presets" || top === "lib") return { layer: top, unit: second.endsWith(".ts") ? top : `${top}/${second}` };
  return { layer: top, unit: top };
}

/**
 * The plugin SDK, the package's main entry: plugins, libraries and presets take every name it exports
 * from it, and from another kernel file only names it does not export.
 */
export const SDK_ENTRY = "core/index.ts";
/** The host entry: what runs plugins (createGovernor, createExtension, config loading). */
export const HOST_ENTRY = "host/index.ts";

/**
 * What plugins take from each other besides services: the names of a plugin's tools and the text
 * that calls them, which other plugins write into what the model reads (a placeholder's way back, a
 * budget note) or keep out of a tool filter. Anything else one plugin needs of another is a service.
 */
export const PLUGIN_VOCABULARY: Readonly<Record<string, readonly string[]>> = {
  "plugins/blobs": ["BLOB_READ_TOOL", "blobReadCall", "blobMarker"],
  "plugins/recall": ["CONTEXT_SEARCH_TOOL"],
};

/**
 * The service keys a plugin's index.ts declares (`export const KEY = defineService<T>(...)`) and the
 * value types they carry (each type name in `T`).
 */
export function serviceNames(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    for (const d of statement.declarationList.declarations) {
      const init = d.initializer;
      if (!ts.isIdentifier(d.name) || !init || !ts.isCallExpression(init) || !ts.isIdentifier(init.expression) || init.expression.text !== "defineService")
        continue;
      out.push(d.name.text);
      const typeNames = (node: ts.Node): void => {
        if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) out.push(node.typeName.text);
        ts.forEachChild(node, typeNames);
      };
      for (const t of init.typeArguments ?? []) typeNames(t);
    }
  }
  return out;
}

/**
 * What another plugin may take from the plugin folder `unit` (`plugins/<name>`) read under `root`:
 * its service keys with their value types, and its {@link PLUGIN_VOCABULARY}.
 */
export const pluginSurfaceUnder =
  (root: string) =>
  (unit: string): ReadonlySet<string> => {
    const index = join(root, unit, "index.ts");
    const services = existsSync(index) ? serviceNames(index, readFileSync(index, "utf8")) : [];
    return new Set([...services, ...(PLUGIN_VOCABULARY[unit] ?? [])]);
  };

/** Whether a preset file may import another preset's: only the list of presets takes each preset, and an extension the list. */
function presetImportAllowed(e: ImportEdge, to: { unit: string }): boolean {
  if (e.from === "presets/index.ts") return e.to === `${to.unit}/index.ts`;
  return e.to === "presets/index.ts" && /^presets\/[^/]+\/extension\.ts$/.test(e.from);
}

/**
 * Layering rules broken by `edges`, one line each (`file:line imports target: why`):
 * - core imports only core;
 * - the host imports only core, lib and itself; the testing kit (testing/) only core, lib, the host and itself;
 * - lib imports neither plugins, presets nor cli;
 * - lib, plugins and presets take a name the SDK (core/index.ts) exports only from it, and from
 *   another kernel file only names the SDK does not export (the SDK's names are read from its
 *   re-exports among `edges`); presets reach the host only through host/index.ts; cli and bin
 *   import any of them;
 * - plugins import no preset and no cli, and another plugin only through its index.ts, and (when
 *   `surface` is given) take from it only its service keys, their value types and its
 *   {@link PLUGIN_VOCABULARY}: the rest of what plugins share is a service or lives in lib/;
 * - presets import no cli and no other preset: presets/index.ts lists the presets, and a preset's
 *   extension.ts imports that list (values every preset uses live beside their plugin);
 * - presets take a plugin only through its index.ts;
 * - code outside a library imports it only through its index.ts (lib/<name>/index.ts);
 * - the replay (cli/replay/, CLI tooling) reaches a plugin only through its index.ts, the surface the
 *   plugin chose to export (the prune plugin's: the factory, its step presets and cache pricing);
 * - every relative import names a file that exists (when `exists` is given).
 */
export function ruleViolations(edges: readonly ImportEdge[], exists?: (file: string) => boolean, surface?: (unit: string) => ReadonlySet<string>): string[] {
  const out: string[] = [];
  const sdkNames = new Set(edges.filter((e) => e.from === SDK_ENTRY).flatMap((e) => e.names ?? []));
  for (const e of edges) {
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    const where = `${e.from}:${e.line} imports ${e.to}`;
    if (exists && !exists(e.to)) out.push(`${where}: no such file`);
    if (from.layer === "core" && to.layer !== "core") out.push(`${where}: core imports only core (the kernel depends on nothing above it)`);
    if (from.layer === "host" && to.layer !== "host" && to.layer !== "core" && to.layer !== "lib")
      out.push(`${where}: the host imports only core, lib and the host`);
    if ((from.layer === "lib" || from.layer === "plugins") && to.layer === "host") out.push(`${where}: plugins and libraries never import the host`);
    if (from.layer === "testing" && !["testing", "host", "core", "lib"].includes(to.layer))
      out.push(`${where}: the testing kit imports only core, lib, the host and itself`);
    if (to.layer === "testing" && from.layer !== "testing") out.push(`${where}: only tests import the testing kit`);
    if (from.layer === "lib" && (to.layer === "plugins" || to.layer === "presets" || to.layer === "cli"))
      out.push(`${where}: lib imports only lib and ${SDK_ENTRY}`);
    if ((from.layer === "lib" || from.layer === "plugins" || from.layer === "presets") && to.layer === "core" && e.to !== SDK_ENTRY) {
      const taken = e.names ?? ["* (everything)"];
      for (const name of taken.filter((n) => !e.names || sdkNames.has(n)))
        out.push(`${where}: takes ${name}; a plugin, library or preset takes the SDK's names from ${SDK_ENTRY} (the plugin SDK)`);
    }
    if (from.layer === "presets" && to.layer === "host" && e.to !== HOST_ENTRY)
      out.push(`${where}: a preset runs the kernel (extension.ts) only through ${HOST_ENTRY}`);
    if (from.layer === "plugins" && (to.layer === "presets" || to.layer === "cli")) out.push(`${where}: a plugin imports no preset and no cli`);
    if (from.layer === "presets" && to.layer === "cli") out.push(`${where}: a preset imports no cli`);
    if (to.layer === "lib" && from.unit !== to.unit && e.to !== `${to.unit}/index.ts` && from.layer !== "cli" && from.layer !== "bin")
      out.push(`${where}: a library's internals; import ${to.unit}/index.ts`);
    const crossPlugin = (from.layer === "plugins" || from.layer === "presets") && to.layer === "plugins" && from.unit !== to.unit;
    if (crossPlugin && e.to !== `${to.unit}/index.ts`) out.push(`${where}: another plugin's internals; import ${to.unit}/index.ts (or use a service)`);
    else if (crossPlugin && from.layer === "plugins" && surface) {
      const offered = surface(to.unit);
      const taken = e.names ?? ["* (everything)"];
      for (const name of taken.filter((n) => !offered.has(n)))
        out.push(
          `${where}: takes ${name}; a plugin takes from another only its service keys, their types and its tools' names (${[...offered].join(", ") || "none"}): use a service, or move what both need to lib/`,
        );
    }
    if (from.layer === "presets" && to.layer === "presets" && from.unit !== to.unit && !presetImportAllowed(e, to))
      out.push(`${where}: a preset imports no other preset; share a value beside its plugin (plugins/<name>/index.ts) or in lib/`);
    if (e.from.startsWith(REPLAY_DIR) && to.layer === "plugins" && e.to !== `${to.unit}/index.ts`)
      out.push(`${where}: the replay reaches a plugin only through its index.ts; import ${to.unit}/index.ts (export what it needs there)`);
  }
  return out;
}

/**
 * Plugins that meet only through a service and a shared library, never by importing each other:
 * pairs of plugin folders, with folders inside them that are exempt (none today: the replay that runs
 * both plugins as pi would lives in cli/).
 */
export const SEPARATE_PLUGINS: ReadonlyArray<{ a: string; b: string; exempt?: readonly string[] }> = [{ a: "plugins/prune", b: "plugins/fold" }];

/** Imports between plugins that must stay apart ({@link SEPARATE_PLUGINS}), one line each. */
export function separationViolations(edges: readonly ImportEdge[], pairs = SEPARATE_PLUGINS): string[] {
  const out: string[] = [];
  for (const e of edges) {
    for (const { a, b, exempt = [] } of pairs) {
      if (exempt.some((dir) => e.from.startsWith(dir))) continue;
      for (const [from, to] of [
        [a, b],
        [b, a],
      ] as const) {
        if (e.from.startsWith(`${from}/`) && e.to.startsWith(`${to}/`))
          out.push(`${e.from}:${e.line} imports ${e.to}: ${from} and ${to} meet only through their service and a shared lib module`);
      }
    }
  }
  return out;
}

/** Where the session replay and its session generator live: CLI tooling, above every plugin. */
export const REPLAY_DIR = "cli/replay/";

/**
 * Files in the wrong layer, one line each: the replay (a simulator, report and session generator
 * that only the CLI, the bench and tests run) is CLI tooling, so no plugin holds a `replay` folder
 * or file; it lives in {@link REPLAY_DIR}.
 */
export function placementViolations(files: readonly string[]): string[] {
  return files
    .filter((f) => f.startsWith("plugins/") && f.split("/").some((segment) => /^replay(?:$|[-.])/.test(segment)))
    .map((f) => `${f}: the replay is CLI tooling; it lives in ${REPLAY_DIR}, not in a plugin`);
}

/** Whether a repo-relative file exists under `root`. */
export const fileExistsUnder = (root: string) => (file: string) => existsSync(join(root, file));

/** The repository root (this file is test/unit/architecture/import-graph.ts). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
