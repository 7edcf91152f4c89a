/** The newest modification time (ms) of the package's TypeScript sources: is dist/ older than them? */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function newestSource(root: string, dirs: readonly string[] = ["core", "lib", "plugins", "presets"]): number {
  let newest = statSync(join(root, "package.json")).mtimeMs;
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of dirs) visit(join(root, dir));
  return newest;
}
