/**
 * The service's Prometheus metrics: one registry per Deps (tests build one per app, so nothing leaks
 * between them), with every instrument named here so the whole list is in one place. Events count where
 * they happen (ingest, scoring, admit, settle, delivery, poll) through the methods below; what a table
 * already knows (queue depth, database size) is read at scrape time by the monitoring module and set on
 * the gauges just before they are rendered.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Methods a route can be served with; anything else a client sends is labelled OTHER (bounded cardinality). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The route label of a request that reached no route: its raw path would be a label per URL. */
export const UNMATCHED_ROUTE = "(unmatched)";

/** How a delivery attempt ended: sent, failed and to be tried again, failed for good, or not sent (muted, disabled, duplicate). */
export type DeliveryOutcome = "delivered" | "retry" | "failed" | "skipped";

/** The speed-to-lead stages /metrics shows as histograms (GET /api/v1/analytics/speed has them all). */
export type SpeedStage = "first_seen" | "alerted" | "submitted";

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface HttpSeries {
  labels: { method: string; route: string; status: string };
  /** Observations per bucket (not cumulative; cumulated when rendered); past the last bound only in count. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * The request-latency histogram, the one metric observed on every request. prom-client's own Histogram
 * costs about a microsecond per observation (a label object, a label check and a key string built each
 * time), a few per cent of a whole request to this server; this one finds its series through three map
 * reads and bumps numbers, and hands prom-client's registry the same exposition (it renders like any
 * metric registered there).
 */
class RequestHistogram {
  readonly name = "jobpilot_http_request_duration_seconds";
  readonly help = "HTTP requests by method, route pattern and status, with their latency (the _count series is the request count)";
  readonly type = "histogram";
  readonly aggregator = "sum";
  /** route → method → status → series. */
  private series = new Map<string, Map<string, Map<number, HttpSeries>>>();

  constructor(registry: Registry) {
    registry.registerMetric(this as never);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (s === undefined) {
      s = { labels: { method, route, status: String(status) }, counts: new Float64Array(HTTP_BUCKETS.length), sum: 0, count: 0 };
      byStatus.set(status, s);
    }
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < HTTP_BUCKETS.length; i++) {
      if (seconds <= HTTP_BUCKETS[i]!) {
        s.counts[i]!++;
        break;
      }
    }
  }

  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const byMethod of this.series.values())
      for (const byStatus of byMethod.values())
        for (const s of byStatus.values()) {
          let cumulative = 0;
          HTTP_BUCKETS.forEach((le, i) => {
            cumulative += s.counts[i]!;
            values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
          });
          values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count });
          values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
          values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
        }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series = new Map();
  }
}

export class Metrics {
  readonly registry = new Registry();
  /** False when JOBPILOT_METRICS=false: nothing is observed per request and /metrics is not served. */
  readonly isEnabled: boolean;

  private readonly httpDuration = new RequestHistogram(this.registry);

  readonly jobsIngested = new Counter({
    name: "jobpilot_jobs_ingested_total",
    help: "Job documents ingested, by source and outcome (new: archived for the first time; known: refreshed; rejected: invalid)",
    labelNames: ["source", "outcome"] as const,
    registers: [this.registry],
  });
  readonly matches = new Counter({
    name: "jobpilot_feed_matches_total",
    help: "Jobs that entered a feed, by where their score came from (default, ai, cache, local)",
    labelNames: ["score_source"] as const,
    registers: [this.registry],
  });
  readonly scorings = new Counter({
    name: "jobpilot_scorings_total",
    help: "Jobs scored against a feed's prompt, by where the score came from (ai: a model call; cache; local; default: empty prompt)",
    labelNames: ["score_source"] as const,
    registers: [this.registry],
  });
  private readonly modelCalls = new Counter({
    name: "jobpilot_model_calls_total",
    help: "Calls to the model server, by purpose (scoring, proposal) and outcome (ok, or the kind of failure: timeout, rate_limited, server, …)",
    labelNames: ["purpose", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly modelTokens = new Counter({
    name: "jobpilot_model_tokens_total",
    help: "Tokens used by model calls, by purpose and type (prompt, completion)",
    labelNames: ["purpose", "type"] as const,
    registers: [this.registry],
  });
  readonly applications = new Counter({
    name: "jobpilot_applications_total",
    help: "Applications that reached a final status, by status",
    labelNames: ["status"] as const,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: "jobpilot_deliveries_total",
    help: "Notification deliveries by kind (webhook, …) and outcome (delivered, retry, failed, skipped)",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly deliveryDuration = new Histogram({
    name: "jobpilot_delivery_duration_seconds",
    help: "Time a delivery attempt took (request sent to answer or error), by kind and outcome",
    labelNames: ["kind", "outcome"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly speedToLead = new Histogram({
    name: "jobpilot_speed_to_lead_seconds",
    help: "Time from a job's publish time to a stage, by stage (first_seen: archived; alerted: an alert delivered, each target; submitted) and job source",
    labelNames: ["stage", "source"] as const,
    // A posting's first hour decides most replies (docs/feeds-and-scoring.md, speed to lead); past a week the rest is +Inf.
    buckets: [30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400, 604_800],
    registers: [this.registry],
  });
  readonly sourcePolls = new Counter({
    name: "jobpilot_source_polls_total",
    help: "Polls of job sources, by source and outcome (ok, error)",
    labelNames: ["source", "outcome"] as const,
    registers: [this.registry],
  });

  // Read at scrape time (see modules/monitoring).
  readonly tasks = new Gauge({
    name: "jobpilot_tasks",
    help: "Background tasks in the queue, by kind and state (queued, running, failed)",
    labelNames: ["kind", "state"] as const,
    registers: [this.registry],
  });
  readonly taskOldestAge = new Gauge({
    name: "jobpilot_task_oldest_age_seconds",
    help: "How long the oldest due queued task of each kind has waited",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly outboxOldestAge = new Gauge({
    name: "jobpilot_outbox_oldest_due_age_seconds",
    help: "How long each account's oldest due delivery (webhook or channel alert) has waited; the 20 longest-waiting accounts only",
    labelNames: ["account"] as const,
    registers: [this.registry],
  });
  readonly loopTickAge = new Gauge({
    name: "jobpilot_loop_last_tick_age_seconds",
    help: "Seconds since each background loop last ticked (see /readyz)",
    labelNames: ["loop"] as const,
    registers: [this.registry],
  });
  // What the process holds, to tell a growing JS heap from memory held outside it (bench memory reports both).
  readonly residentMemory = new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory of this process (RSS): the JS heap, native memory and the executable's pages in memory",
    registers: [this.registry],
  });
  readonly jsHeap = new Gauge({
    name: "jobpilot_js_heap_bytes",
    help: "The JavaScript heap: used (live objects and garbage not yet collected) and total (its capacity; counted apart, used can exceed it)",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });
  readonly jsExternal = new Gauge({
    name: "jobpilot_js_external_bytes",
    help: "Native memory JavaScript objects hold outside the heap (buffers, large strings), as the engine counts it",
    registers: [this.registry],
  });
  readonly databaseSize = new Gauge({
    name: "jobpilot_database_size_bytes",
    help: "Size of the database (SQLite: the main file; PostgreSQL: pg_database_size)",
    registers: [this.registry],
  });
  // Each backend's own gauges are registered only on that backend, so a scrape shows no always-zero series.
  readonly walSize: Gauge;
  readonly poolMax: Gauge;
  readonly postgresConnections: Gauge<"state">;

  constructor(opts: { enabled: boolean; version: string; backend: "sqlite" | "pg" }) {
    this.isEnabled = opts.enabled;
    const sqlite = opts.backend === "sqlite" ? [this.registry] : [];
    const pg = opts.backend === "pg" ? [this.registry] : [];
    this.walSize = new Gauge({ name: "jobpilot_sqlite_wal_bytes", help: "Size of the SQLite write-ahead log (-wal file)", registers: sqlite });
    this.poolMax = new Gauge({
      name: "jobpilot_postgres_pool_max_connections",
      help: "PostgreSQL connections this process may keep open (JOBPILOT_DATABASE_POOL_SIZE)",
      registers: pg,
    });
    this.postgresConnections = new Gauge({
      name: "jobpilot_postgres_connections",
      help: "Connections to this PostgreSQL database from every client (pg_stat_activity), by state",
      labelNames: ["state"] as const,
      registers: pg,
    });
    new Gauge({ name: "jobpilot_build_info", help: "The running version (always 1)", labelNames: ["version"] as const, registers: [this.registry] })
      .labels(opts.version)
      .set(1);
  }

  /** One HTTP request, on the hot path (see RequestHistogram). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe(METHODS.has(method) ? method : "OTHER", route, status, seconds);
  }

  /** One call to the model server; its token usage when it answered. */
  modelCall(purpose: "scoring" | "proposal", outcome: string, usage?: { promptTokens: number; completionTokens: number }): void {
    this.modelCalls.labels(purpose, outcome).inc();
    if (!usage) return;
    this.modelTokens.labels(purpose, "prompt").inc(usage.promptTokens);
    this.modelTokens.labels(purpose, "completion").inc(usage.completionTokens);
  }

  /** One delivery attempt of a notification; `kind` is where it went: webhook, or a channel's platform (telegram, slack, …). */
  delivery(kind: string, outcome: DeliveryOutcome, seconds?: number): void {
    this.deliveries.labels(kind, outcome).inc();
    if (seconds !== undefined) this.deliveryDuration.labels(kind, outcome).observe(seconds);
  }

  /**
   * A job reached a speed-to-lead stage at `atTs`; nothing when its document has no publish time. `source` is the
   * job's source name (configured sources, push, capture: few). A publish time after the stage (a source's clock
   * ahead of ours) counts as 0 rather than being dropped, so the count still matches the stage's events.
   */
  observeSpeed(stage: SpeedStage, source: string, publishTimeTs: number | null, atTs: number): void {
    if (publishTimeTs === null) return;
    this.speedToLead.labels(stage, source).observe(Math.max(0, atTs - publishTimeTs) / 1000);
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
