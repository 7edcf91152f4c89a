/**
 * A local OTLP/HTTP (JSON) receiver for tests and benches, on 127.0.0.1: records what exporters send
 * to /v1/traces and /v1/metrics, decoded. `blackhole` mode accepts connections and never answers (a
 * hung collector); {@link closedPort} gives a port nothing listens on (a collector that is down).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";

/** One OTLP attribute value as the JSON encoding carries it. */
type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };

/** A span decoded to plain attributes. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  status: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  events: Array<{ name: string; attributes: Record<string, string | number | boolean> }>;
  resource: Record<string, string | number | boolean>;
}

/** A running receiver. */
export interface OtlpReceiver {
  url: string;
  port: number;
  spans: ReceivedSpan[];
  /** Metric names with the sum of their data points (counters: values; histograms: counts). */
  metricSums(): Map<string, number>;
  /** Headers of every export request. */
  requests: Array<{ path: string; headers: IncomingHttpHeaders; contentType: string | undefined }>;
  close(): Promise<void>;
}

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return JSON.stringify(v);
}

function attrs(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

/** Starts a receiver that answers every export with 200 and an empty JSON body. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricBodies: unknown[] = [];
  const requests: OtlpReceiver["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "";
      requests.push({ path, headers: req.headers, contentType: req.headers["content-type"] });
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      if (path === "/v1/traces") {
        for (const rs of body.resourceSpans ?? []) {
          const resource = attrs(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                name: s.name,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                status: s.status ?? {},
                attributes: attrs(s.attributes),
                events: (s.events ?? []).map((e: { name: string; attributes?: Array<{ key: string; value: AnyValue }> }) => ({
                  name: e.name,
                  attributes: attrs(e.attributes),
                })),
                resource,
              });
            }
          }
        }
      } else if (path === "/v1/metrics") metricBodies.push(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    spans,
    requests,
    metricSums() {
      const sums = new Map<string, number>();
      for (const body of metricBodies as Array<{ resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<Record<string, any>> }> }> }>) {
        for (const rm of body.resourceMetrics ?? []) {
          for (const sm of rm.scopeMetrics ?? []) {
            for (const m of sm.metrics ?? []) {
              const points: Array<Record<string, unknown>> = m.sum?.dataPoints ?? m.histogram?.dataPoints ?? m.gauge?.dataPoints ?? [];
              // Cumulative points: the latest export holds the totals, so keep the largest sum seen.
              const total = points.reduce((acc, p) => acc + Number(p.asInt ?? p.asDouble ?? p.count ?? 0), 0);
              sums.set(m.name, Math.max(sums.get(m.name) ?? 0, total));
            }
          }
        }
      }
      return sums;
    },
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections?.();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A TCP server on 127.0.0.1 that accepts and never answers. */
export async function startBlackhole(): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port that was free a moment ago and has no listener (connections are refused). */
export async function closedPort(): Promise<string> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
