/**
 * The kota_* tools' parameters as pi expects them (TypeBox), with KotaDB's defaults and hard caps.
 * Integer bounds come from the caps table (caps.ts), which also drives the clamps and the budget caps.
 *
 * Every schema is sent with every request, so descriptions say only what the name and the type do
 * not (a default, an example), choices are one `enum`, and array items carry no constraints of
 * their own (the mapping drops empty paths).
 */
import { Type } from "typebox";
import { stringEnum } from "../../lib/schema/index.ts";
import { capSchema, KOTA_TASK_FILES_MAX } from "./caps.ts";

const path = (description: string) => Type.String({ description });
const paths = () => Type.Array(Type.String());
/** A flag; only a `true` default is worth saying (false is what an absent flag means). */
const flag = (fallback: boolean) => (fallback ? Type.Boolean({ description: "Default true" }) : Type.Boolean());

/** kota_index */
export const indexParams = Type.Object({
  path: Type.Optional(path("Default: repository root")),
  force: Type.Optional(Type.Boolean()),
});

/** kota_search */
export const searchParams = Type.Object({
  query: Type.String(),
  scope: Type.Optional(Type.Array(stringEnum(["code", "symbols", "decisions", "patterns", "failures"]), { description: "Default code" })),
  output: Type.Optional(stringEnum(["paths", "compact", "snippet"])),
  limit: Type.Optional(capSchema("kota_search", "limit", "")),
  context_lines: Type.Optional(capSchema("kota_search", "context_lines", "")),
  filters: Type.Optional(
    Type.Object({
      glob: Type.Optional(Type.String({ description: "e.g. src/**/*.ts" })),
      exclude: Type.Optional(Type.Array(Type.String())),
      language: Type.Optional(Type.String()),
      symbol_kind: Type.Optional(Type.Array(Type.String(), { description: "e.g. function, class" })),
      exported_only: Type.Optional(Type.Boolean()),
    }),
  ),
});

/** kota_deps */
export const depsParams = Type.Object({
  file_path: path("e.g. src/auth/context.ts"),
  direction: Type.Optional(stringEnum(["dependents", "dependencies", "both"], { description: "Default both" })),
  depth: Type.Optional(capSchema("kota_deps", "depth", "")),
  include_tests: Type.Optional(flag(false)),
});

/** kota_usages */
export const usagesParams = Type.Object({
  symbol: Type.String({ description: "e.g. loadConfig" }),
  file: Type.Optional(path("Defining file, if ambiguous")),
  include_tests: Type.Optional(flag(false)),
});

/** kota_impact */
export const impactParams = Type.Object({
  change_type: stringEnum(["feature", "refactor", "fix", "chore"]),
  description: Type.String({ description: "One sentence" }),
  files_to_modify: Type.Optional(paths()),
  files_to_create: Type.Optional(paths()),
  files_to_delete: Type.Optional(paths()),
  breaking_changes: Type.Optional(flag(false)),
});

/** kota_task_context */
export const taskContextParams = Type.Object({
  files: Type.Array(Type.String(), { minItems: 1, maxItems: KOTA_TASK_FILES_MAX }),
  include_tests: Type.Optional(flag(true)),
  include_symbols: Type.Optional(flag(false)),
  max_impacted_files: Type.Optional(capSchema("kota_task_context", "max_impacted_files", "")),
});
