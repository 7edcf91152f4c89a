/**
 * The kota_* tools' parameters as pi expects them (TypeBox), with KotaDB's defaults and hard caps.
 * Integer bounds come from the caps table (caps.ts), which also drives the clamps and the budget caps.
 */
import { Type } from "typebox";
import { capSchema, KOTA_TASK_FILES_MAX } from "./caps.ts";

const path = (description: string) => Type.String({ minLength: 1, description });
const paths = (description: string, maxItems = 50) => Type.Array(Type.String({ minLength: 1 }), { maxItems, description });

/** kota_index */
export const indexParams = Type.Object({
  path: Type.Optional(path("Directory to index, inside the repository. Default: the repository root.")),
  force: Type.Optional(Type.Boolean({ description: "Re-index even when the index is fresh. Default false." })),
});

/** kota_search */
export const searchParams = Type.Object({
  query: Type.String({ minLength: 1, description: "Search term or phrase." }),
  scope: Type.Optional(Type.Array(Type.Union([Type.Literal("code"), Type.Literal("symbols"), Type.Literal("decisions"), Type.Literal("patterns"), Type.Literal("failures")]), { minItems: 1, maxItems: 5, description: 'Scopes to search. Default ["code"].' })),
  output: Type.Optional(Type.Union([Type.Literal("paths"), Type.Literal("compact"), Type.Literal("snippet")], { description: 'paths: file paths only; compact: path and match count (default); snippet: matching lines with context.' })),
  limit: Type.Optional(capSchema("kota_search", "limit", "Max results per scope.")),
  context_lines: Type.Optional(capSchema("kota_search", "context_lines", "Context lines around snippet matches.")),
  filters: Type.Optional(
    Type.Object({
      glob: Type.Optional(Type.String({ description: "File path glob (code scope), e.g. src/**/*.ts." })),
      exclude: Type.Optional(Type.Array(Type.String(), { description: "Exclude patterns (code scope)." })),
      language: Type.Optional(Type.String({ description: "Language filter (code scope)." })),
      symbol_kind: Type.Optional(Type.Array(Type.String(), { description: "Symbol kinds (symbols scope): function, class, interface, type, ..." })),
      exported_only: Type.Optional(Type.Boolean({ description: "Only exported symbols (symbols scope)." })),
    }),
  ),
});

/** kota_deps */
export const depsParams = Type.Object({
  file_path: path("File path relative to the repository root, e.g. src/auth/context.ts."),
  direction: Type.Optional(Type.Union([Type.Literal("dependents"), Type.Literal("dependencies"), Type.Literal("both")], { description: 'dependents: files importing it; dependencies: files it imports; both (default).' })),
  depth: Type.Optional(capSchema("kota_deps", "depth", "Traversal depth.")),
  include_tests: Type.Optional(Type.Boolean({ description: "Include test files. Default false." })),
});

/** kota_usages */
export const usagesParams = Type.Object({
  symbol: Type.String({ minLength: 1, description: "Symbol name, e.g. loadConfig." }),
  file: Type.Optional(path("File that defines the symbol, when the name is ambiguous.")),
  include_tests: Type.Optional(Type.Boolean({ description: "Include usages in test files. Default false." })),
});

/** kota_impact */
export const impactParams = Type.Object({
  change_type: Type.Union([Type.Literal("feature"), Type.Literal("refactor"), Type.Literal("fix"), Type.Literal("chore")], { description: "Kind of change." }),
  description: Type.String({ minLength: 1, description: "One sentence: what changes." }),
  files_to_modify: Type.Optional(paths("Files to modify (relative paths).")),
  files_to_create: Type.Optional(paths("Files to create (relative paths).")),
  files_to_delete: Type.Optional(paths("Files to delete (relative paths).")),
  breaking_changes: Type.Optional(Type.Boolean({ description: "Whether the change breaks callers. Default false." })),
});

/** kota_task_context */
export const taskContextParams = Type.Object({
  files: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: KOTA_TASK_FILES_MAX, description: `Files the task is about (relative paths), at most ${KOTA_TASK_FILES_MAX}.` }),
  include_tests: Type.Optional(Type.Boolean({ description: "Find test files. Default true." })),
  include_symbols: Type.Optional(Type.Boolean({ description: "Include symbols per file. Default false." })),
  max_impacted_files: Type.Optional(capSchema("kota_task_context", "max_impacted_files", "Most impacted files returned.")),
});
