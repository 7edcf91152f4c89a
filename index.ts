/**
 * The pi extension of this package (package.json `pi.extensions`): the default preset, kota (a
 * config file may switch to another with `"preset": "lean"`). At the package root and named
 * index.ts so that pi lists the extension by the package ("pi-governor"), not by a file name
 * ("extension.ts"). The package's import entry is core/index.ts (package.json `exports`), not this.
 */
export { default } from "./presets/kota/extension.ts";
