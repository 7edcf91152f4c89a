/**
 * The command line's stand-in for `typebox`: bin/pi-governor.mjs maps the `typebox` import here.
 *
 * pi hands its own typebox to the extensions it loads, so pi-governor does not depend on typebox; a
 * shell command gets none, and a runtime-only install (`npm ci --omit=dev`) has no copy. Commands
 * such as doctor, schema and replay build presets, and with them the tool definitions, but never hand
 * a tool to a model: plain JSON Schema objects, shaped as TypeBox 1 shapes them, are all they need.
 * Only the builders the package's tools use; test/unit/cli/typebox-json.test.ts checks that every
 * shipped tool's parameters come out equal to typebox's.
 */

type Schema = Record<string, unknown>;
type Options = Record<string, unknown>;

const OPTIONAL = "~optional";

function mark(schema: Schema, key: string, value: unknown): Schema {
  Object.defineProperty(schema, key, { value, writable: true, enumerable: false, configurable: true });
  return schema;
}

const kind = (name: string, schema: Schema): Schema => mark(schema, "~kind", name);

const builders = {
  String: (options: Options = {}) => kind("String", { type: "string", ...options }),
  Integer: (options: Options = {}) => kind("Integer", { type: "integer", ...options }),
  Number: (options: Options = {}) => kind("Number", { type: "number", ...options }),
  Boolean: (options: Options = {}) => kind("Boolean", { type: "boolean", ...options }),
  Literal: (value: string | number | boolean, options: Options = {}) => kind("Literal", { type: typeof value, const: value, ...options }),
  Array: (items: Schema, options: Options = {}) => kind("Array", { type: "array", items, ...options }),
  Union: (anyOf: Schema[], options: Options = {}) => kind("Union", { anyOf, ...options }),
  /** The schema as given (lib/schema's one-`enum` string choices). */
  Unsafe: (schema: Schema = {}) => kind("Unsafe", { ...schema }),
  /** A copy of `schema` its enclosing `Object` leaves out of `required`. */
  Optional: (schema: Schema) => mark(copy(schema), OPTIONAL, true),
  Object: (properties: Record<string, Schema>, options: Options = {}) => {
    const required = Object.keys(properties).filter((key) => properties[key]?.[OPTIONAL] !== true);
    return kind("Object", { type: "object", ...(required.length > 0 ? { required } : {}), properties, ...options });
  },
};

/** A shallow copy that keeps the non-enumerable marks (`~kind`). */
function copy(schema: Schema): Schema {
  const out: Schema = { ...schema };
  for (const key of Object.getOwnPropertyNames(schema)) if (!(key in out)) mark(out, key, schema[key]);
  return out;
}

/** `Type` as the package's tool modules call it; any other builder fails with its name. */
export const Type = new Proxy(builders, {
  get(target, name) {
    if (typeof name === "string" && /^[A-Z]/.test(name) && !(name in target)) {
      throw new Error(`Type.${name} is not available in the pi-governor command line (cli/typebox-json.ts builds only ${Object.keys(target).join(", ")})`);
    }
    return target[name as keyof typeof target];
  },
});
