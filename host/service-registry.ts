/**
 * The services of one governor: what the host hands every plugin (logger, clock, cwd, UI, session
 * store) and the typed services plugins provide each other. A plugin gets its own view, which refuses
 * a key the plugin did not declare (`provides`, `requires`, `optional`), so every dependency between
 * plugins is visible to the host.
 */
import type { GovernorPlugin } from "../core/plugin.ts";
import type { GovernorServices, Logger, ServiceKey } from "../core/services.ts";

/** Services provided so far, by service name, with the plugin that provided each. */
export class ServiceRegistry {
  private readonly provided = new Map<string, { value: unknown; by: string }>();
  /** The host's view: `need` and `maybe` read any provided service; `provide` throws (only a plugin's apply provides). */
  readonly services: GovernorServices;

  /**
   * @param host what the host hands every plugin; `need`, `maybe` and `provide` are the registry's
   * @param presetName for the message of a service no plugin provides
   */
  constructor(
    host: Omit<GovernorServices, "need" | "maybe" | "provide">,
    private readonly presetName: string,
  ) {
    this.services = {
      ...host,
      need: <T>(key: ServiceKey<T>): T => {
        if (!this.provided.has(key.name)) throw new Error(`service "${key.name}" is not provided in this governor (preset "${this.presetName}")`);
        return this.read(key) as T;
      },
      maybe: <T>(key: ServiceKey<T>) => this.read(key) as T | undefined,
      provide: (key) => {
        throw new Error(`service "${key.name}" can only be provided by a plugin's apply (list it in the plugin's provides)`);
      },
    };
  }

  /** Whether a plugin provided the service named `name`. */
  has(name: string): boolean {
    return this.provided.has(name);
  }

  /** The plugin that provided the service named `name`. */
  providerOf(name: string): string | undefined {
    return this.provided.get(name)?.by;
  }

  /** Takes back what `plugin` provided (its apply failed, or it did not provide all it declared). */
  withdraw(plugin: GovernorPlugin<any>): void {
    for (const [name, entry] of this.provided) if (entry.by === plugin.name) this.provided.delete(name);
  }

  /** The services one plugin gets: its own logger, and only the services it declared. */
  servicesFor(plugin: GovernorPlugin<any>, logger: Logger): GovernorServices {
    const declared = (keys: ReadonlyArray<ServiceKey<any>>, key: ServiceKey<any>) => keys.some((k) => k.name === key.name);
    const undeclared = (key: ServiceKey<any>, list: string) =>
      new Error(`plugin "${plugin.name}" uses service "${key.name}" without declaring it; add it to the plugin's ${list}`);
    return {
      ...this.services,
      logger,
      need: <T>(key: ServiceKey<T>): T => {
        if (!declared(plugin.requires, key)) throw undeclared(key, "requires");
        if (!this.provided.has(key.name)) throw new Error(`plugin "${plugin.name}" needs service "${key.name}", which is not provided`);
        return this.read(key) as T;
      },
      maybe: <T>(key: ServiceKey<T>) => {
        if (!declared(plugin.requires, key) && !declared(plugin.optional, key)) throw undeclared(key, "optional (or requires)");
        return this.read(key) as T | undefined;
      },
      provide: (key, value) => {
        if (!declared(plugin.provides, key)) throw undeclared(key, "provides");
        const other = this.provided.get(key.name);
        if (other && other.by !== plugin.name) throw new Error(`service "${key.name}" is provided by ${other.by} already`);
        this.provided.set(key.name, { value, by: plugin.name });
      },
    };
  }

  private read(key: ServiceKey<any>): unknown {
    return this.provided.get(key.name)?.value;
  }
}
