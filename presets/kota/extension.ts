/**
 * pi extension entry of the default preset (package.json `pi.extensions`). A config file may switch
 * to another preset with `"preset": "lean"` (or "mcp").
 */
import { createExtension } from "../../host/index.ts";
import { presetsExcept } from "../index.ts";
import { kotaPreset } from "./index.ts";

export default createExtension(kotaPreset, { presets: presetsExcept(kotaPreset) });
