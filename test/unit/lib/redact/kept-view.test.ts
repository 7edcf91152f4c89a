import { describe, expect, it } from "vitest";
import { KeptView } from "../../../../lib/redact/kept-view.ts";

describe("KeptView", () => {
  it("strikes the last kept character per backspace, never past a line's start, and maps offsets back", () => {
    const text = "ab\bc\n\bd";
    const v = new KeptView(text);
    v.keep(0, 2);
    v.strike();
    v.keep(3, 5);
    v.strike();
    v.keep(6, 7);
    const view = v.view();
    expect(view.text).toBe("ac\nd");
    // A start right after a struck character covers it: "b" is drawn over by "c".
    expect(text[view.toSource(1)]).toBe("b");
    expect(text[view.toSource(2)]).toBe("\n");
    expect(text[view.toSource(3)]).toBe("d");
  });

  it("covers a gap with a struck character from both sides, and other gaps from neither", () => {
    // "g\bgh\bh": bold "gh"; then a gap that only removed a sequence.
    const text = "g\bgh\bhXXXok";
    const v = new KeptView(text);
    v.keep(0, 1);
    v.strike();
    v.keep(2, 4);
    v.strike();
    v.keep(5, 6);
    v.keep(9, 11);
    const view = v.view();
    expect(view.text).toBe("ghok");
    // A find of "gh" starts before the struck g and ends after the last h.
    expect(view.toSource(0)).toBe(0);
    expect(view.toSource(1)).toBe(3);
    expect(view.toSource(1, true)).toBe(5);
    expect(view.toSource(2, true)).toBe(6);
    // The sequence gap (XXX) belongs to neither side.
    expect(view.toSource(2)).toBe(9);
    expect(view.toSource(4, true)).toBe(11);
  });

  it("maps every offset when nothing is kept", () => {
    const v = new KeptView("a\b");
    v.keep(0, 1);
    v.strike();
    expect(v.view().text).toBe("");
    expect(v.view().toSource(0)).toBe(0);
  });
});
