/**
 * The project's import graph and the layering rules it must keep. Every relative import counts:
 * `import` and `export ... from` (type-only ones too: they couple modules the same way for a reader
 * and for tsc), `import()` and `jiti.import()` with a string literal. Paths are repo-relative with `/`.
 *
 * Layers, top to bottom: bin -> cli -> presets -> plugins -> lib -> core. A layer imports only layers
 * below it (cli may import anything under it, presets' CLI helpers included); see docs/architecture.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Top-level folders whose files form the graph (tests are outside it). */
export const SCANNED_DIRS = ["core", "lib", "cli", "plugins", "presets", "bin"] as const;

/** One import of one file. */
export interface ImportEdge {
  /** Importing file, repo-relative. */
  from: string;
  /** Imported file, repo-relative (as written, resolved against `from`). */
  to: string;
  kind: "static" | "type" | "dynamic";
  /** 1-based line of the import. */
  line: number;
}

/** The relative module specifiers a file imports, with kind and line. */
export function parseImports(fileName: string, text: string): Array<{ specifier: string; kind: ImportEdge["kind"]; line: number }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith(".mjs") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: Array<{ specifier: string; kind: ImportEdge["kind"]; line: number }> = [];
  const add = (node: ts.Node, literal: ts.Expression | undefined, kind: ImportEdge["kind"]) => {
    if (!literal || !ts.isStringLiteralLike(literal) || !literal.text.startsWith(".")) return;
    found.push({ specifier: literal.text, kind, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
  };
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
      add(node, node.moduleSpecifier, typeOnly ? "type" : "static");
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly ? "type" : "static");
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, "static");
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImportCall = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isLoaderImport = ts.isPropertyAccessExpression(callee) && callee.name.text === "import"; // jiti.import("../cli/main.ts")
      if (isImportCall || isLoaderImport) add(node, node.arguments[0], "dynamic");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, "type"); // type X = import("./y.ts").Z
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
      edges.push({ from: file, to: posix.normalize(posix.join(posix.dirname(file), imp.specifier)), kind: imp.kind, line: imp.line });
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

/** The plugin SDK: the one core file plugins and libraries import. */
export const SDK_ENTRY = "core/sdk.ts";
/** The host entry: what runs plugins (createGovernor, createExtension, config loading). */
export const HOST_ENTRY = "core/host-api.ts";

/**
 * Layering rules broken by `edges`, one line each (`file:line imports target: why`):
 * - core imports only core;
 * - lib imports neither plugins, presets nor cli;
 * - lib and plugins reach core only through core/sdk.ts; presets through core/sdk.ts or
 *   core/host-api.ts; cli and bin through any of them (core/index.ts is both);
 * - plugins import no preset and no cli, and another plugin only through its index.ts;
 * - presets import no cli, and another preset or a plugin only through its index.ts;
 * - code outside a library imports it only through its index.ts (lib/<name>/index.ts);
 * - the replay (cli/replay/, CLI tooling) reaches a plugin only through its index.ts, the surface the
 *   plugin chose to export (the prune plugin's: the factory, its step presets and cache pricing);
 * - every relative import names a file that exists (when `exists` is given).
 */
export function ruleViolations(edges: readonly ImportEdge[], exists?: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    const where = `${e.from}:${e.line} imports ${e.to}`;
    if (exists && !exists(e.to)) out.push(`${where}: no such file`);
    if (from.layer === "core" && to.layer !== "core") out.push(`${where}: core imports only core (the kernel depends on nothing above it)`);
    if (from.layer === "lib" && (to.layer === "plugins" || to.layer === "presets" || to.layer === "cli"))
      out.push(`${where}: lib imports only lib and ${SDK_ENTRY}`);
    if ((from.layer === "lib" || from.layer === "plugins") && to.layer === "core" && e.to !== SDK_ENTRY)
      out.push(`${where}: a plugin or library imports the kernel only from ${SDK_ENTRY} (the plugin SDK)`);
    if (from.layer === "presets" && to.layer === "core" && e.to !== SDK_ENTRY && e.to !== HOST_ENTRY)
      out.push(`${where}: a preset imports the kernel from ${SDK_ENTRY} or, to run it (extension.ts), ${HOST_ENTRY}`);
    if (from.layer === "plugins" && (to.layer === "presets" || to.layer === "cli")) out.push(`${where}: a plugin imports no preset and no cli`);
    if (from.layer === "presets" && to.layer === "cli") out.push(`${where}: a preset imports no cli`);
    const crossUnit = (from.layer === "plugins" || from.layer === "presets") && (to.layer === "plugins" || to.layer === "presets") && from.unit !== to.unit;
    if (to.layer === "lib" && from.unit !== to.unit && e.to !== `${to.unit}/index.ts` && from.layer !== "cli" && from.layer !== "bin")
      out.push(`${where}: a library's internals; import ${to.unit}/index.ts`);
    if (crossUnit && e.to !== `${to.unit}/index.ts`)
      out.push(`${where}: another ${to.layer === "plugins" ? "plugin" : "preset"}'s internals; import ${to.unit}/index.ts (or use a service)`);
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
