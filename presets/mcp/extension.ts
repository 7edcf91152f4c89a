/** pi extension entry of the mcp preset (`pi -e pi-governor/presets/mcp/extension.ts`). */
import { createExtension } from "../../host/index.ts";
import { presetsExcept } from "../index.ts";
import { mcpPreset } from "./index.ts";

export default createExtension(mcpPreset, { presets: presetsExcept(mcpPreset) });
