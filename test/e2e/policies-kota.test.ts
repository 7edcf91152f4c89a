/**
 * The policies plugin with the default preset over the KotaDB stand-in, in a real pi SDK session with
 * a UI (ctx.hasUI, confirm answered by the test): rules by behaviour hint ask before kota_index (not
 * read-only) and not before kota_search; a repeated kota_search in the user's turn is answered from
 * the first result without reaching KotaDB, until an edit may have changed the files.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { type KotaE2e, startKotaSession } from "../helpers/kota-e2e.ts";

const call = (name: string, args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });
const resultTexts = (messages: unknown[]) =>
  (messages as AgentMessageLike[])
    .filter((m) => m.role === "toolResult")
    .map((m) => ({ name: (m as { toolName?: string }).toolName, text: JSON.stringify(m.content) }));

let e2e: KotaE2e | undefined;
afterEach(async () => {
  await e2e?.dispose();
  e2e = undefined;
});

describe("policies with the kota preset (SDK session with a UI)", () => {
  for (const answer of [true, false]) {
    it(`a rule by hint asks before kota_index (not read-only), never before kota_search; the user says ${answer ? "yes" : "no"}`, async () => {
      e2e = await startKotaSession({
        config: { policies: { rules: [{ tools: "kota_*", readOnly: false, action: "ask" }] } },
        confirmAnswer: answer,
        responses: [call("kota_search", { query: "add" }), call("kota_index", {}), fauxAssistantMessage([fauxText("done")])],
      });
      await e2e.pi.session.prompt("search and index");
      // kota_index asks its own question too (kota.confirmIndex) once the policy let it through.
      const asked = e2e.pi.ui.confirms.filter((c) => c.title === "Allow tool call?");
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain("kota_index");
      const [search, index] = resultTexts(e2e.pi.contexts.at(-1)!);
      expect(search!.text).not.toContain("Refused");
      if (answer) expect(index!.text).not.toContain("declined");
      else expect(index!.text).toContain("The user declined this kota_index call");
    }, 60_000);
  }

  it("repeatedCalls: the same kota_search again in the user's turn is answered from the first result; after an edit it runs again", async () => {
    e2e = await startKotaSession({
      config: { policies: { repeatedCalls: { enabled: true } } },
      responses: [
        call("kota_index", {}),
        call("kota_search", { query: "add", output: "paths" }),
        call("kota_search", { output: "paths", query: "add" }), // same arguments, other key order
        call("write", { path: "notes.md", content: "a note" }),
        call("kota_search", { query: "add", output: "paths" }),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    await e2e.pi.session.prompt("search twice");
    const results = resultTexts(e2e.pi.contexts.at(-1)!).filter((r) => r.name === "kota_search");
    expect(results).toHaveLength(3);
    expect(results[1]!.text).toMatch(/Same kota_search call and arguments as \S+ earlier in this turn/);
    expect(results[1]!.text).toContain(results[0]!.text.slice(2, -2).slice(0, 80));
    expect(results[2]!.text).not.toContain("Same kota_search call");
  }, 60_000);
});
