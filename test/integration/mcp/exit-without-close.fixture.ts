/** Run as a separate process by shutdown.test.ts: starts a managed server, then exits without closing it. */
import { ManagedMcpServer } from "../../../lib/mcp/index.ts";
import { faultyServer } from "../../fixtures/faulty-mcp.ts";

const faulty = faultyServer({});
const server = new ManagedMcpServer({ name: "orphan", command: faulty.command, args: faulty.args, env: faulty.env });
await server.callTool("echo", { message: "x" });
process.stdout.write(`child pid ${server.status().pid}\n`);
faulty.cleanup();
process.exit(0);
