/**
 * Run as a separate process by process-lifetime.test.ts, with nothing else holding the event loop:
 * one call through a managed server whose child is killed mid-call (SIGKILL), so the call waits
 * through the reconnect and is replayed. The process must stay alive until the call resolves and
 * then exit by itself (no process.exit).
 *
 * argv[2]: the faulty server's state directory. argv[3]: "close" to close the server after the
 * call, "idle" to leave it running (an idle server must not hold the process either). argv[4]:
 * "healthy" for a server that does not crash.
 */
import { ManagedMcpServer } from "../../../lib/mcp/index.ts";
import { FAULTY_SERVER } from "../../fixtures/faulty-mcp.ts";

const [stateDir, after, health] = process.argv.slice(2);
const server = new ManagedMcpServer({
  name: "everything",
  command: process.execPath,
  args: [FAULTY_SERVER],
  env: { FAULT_STATE_DIR: stateDir!, FAULT_MODE: health === "healthy" ? "none" : "crash-mid-call", FAULT_TOOL: "echo", FAULT_TIMES: "1" },
  // A backoff long enough that the process would exit while waiting if nothing held it.
  backoffMs: [300],
});
server.subscribe((e) => {
  if (e.type === "state") process.stdout.write(`state ${e.to}\n`);
});
const result = await server.callTool("echo", { message: "survived" });
process.stdout.write(`result ${JSON.stringify(result.content)}\n`);
process.stdout.write(`child pid ${server.status().pid}\n`);
if (after === "close") await server.close();
process.stdout.write("done\n");
