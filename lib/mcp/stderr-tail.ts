/** Keeps the end of a child's stderr: errors carry the last 500 characters. */
import { tail } from "../../core/classify.ts";

/** A bounded text buffer of the newest stderr output. */
export class StderrTail {
  private text = "";
  /**
   * @param keepChars characters kept before trimming (default 4096; errors show the last 500).
   * @param redact hides secrets in what {@link tail} returns (applied to the whole kept text before
   *   cutting, so a secret across the cut is still recognized). Default: none.
   */
  constructor(
    private readonly keepChars = 4096,
    private readonly redact?: (text: string) => string,
  ) {}

  append(chunk: Buffer | string): void {
    this.text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (this.text.length > this.keepChars * 2) this.text = this.text.slice(-this.keepChars);
  }

  /** The last `max` characters (default 500), trimmed, or undefined when there was none. */
  tail(max = 500): string | undefined {
    return tail(this.redact ? this.redact(this.text) : this.text, max);
  }
}
