import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { textsEncoded } from "./ai/semantic.js";
import type { JobQueue } from "./jobs/queue.js";
import type { SearchCounts } from "./knowledge/remembered-searches.js";

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route">;
  pipelineStage: Histogram<"stage" | "channel">;
  channelDeliveries: Counter<"channel" | "outcome">;
  webhookDeliveries: Counter<"outcome">;
}

/** One registry per process (tests run several apps in one process, each with its own). */
export function createMetrics(jobs: () => JobQueue, searches: () => SearchCounts): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "parley_jobs",
    help: "Jobs by queue and status (pending, running, dead)",
    labelNames: ["queue", "status"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await jobs().depth()) this.set({ queue: row.queue, status: row.status }, row.count);
    },
  });
  new Counter({
    name: "parley_sentence_encodings_total",
    help: "Texts the serving thread had the sentence encoder encode (those not remembered): milliseconds of CPU each",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(textsEncoded());
    },
  });
  new Counter({
    name: "parley_knowledge_searches_total",
    help: "Knowledge searches by result: searched, or remembered from the same question of the same knowledge",
    labelNames: ["result"],
    registers: [registry],
    collect() {
      this.reset();
      const counts = searches();
      this.inc({ result: "searched" }, counts.searched);
      this.inc({ result: "remembered" }, counts.remembered);
    },
  });
  return {
    registry,
    httpRequests: new Counter({
      name: "parley_http_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "parley_http_request_duration_seconds",
      help: "HTTP request latency by route",
      labelNames: ["method", "route"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    pipelineStage: new Histogram({
      name: "parley_pipeline_stage_duration_seconds",
      help: "Time spent in each pipeline stage",
      labelNames: ["stage", "channel"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    channelDeliveries: new Counter({
      name: "parley_channel_deliveries_total",
      help: "Outbound send attempts by channel and outcome (sent, retrying, failed)",
      labelNames: ["channel", "outcome"],
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: "parley_webhook_deliveries_total",
      help: "Attempts at sending event notifications to tenants' endpoints, by outcome (succeeded, retrying, failed)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
  };
}
