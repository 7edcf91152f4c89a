/** pi extension entry of the lean preset (`pi -e pi-governor/presets/lean/extension.ts`). */
import { createExtension } from "../../host/index.ts";
import { presetsExcept } from "../index.ts";
import { leanPreset } from "./index.ts";

export default createExtension(leanPreset, { presets: presetsExcept(leanPreset) });
