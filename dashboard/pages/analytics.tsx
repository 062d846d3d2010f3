import { AnalyticsPageDocument, type AnalyticsPageQuery, type Channel, type Granularity } from "../generated";
import { useQuery } from "../lib/query";
import { useSearchParam } from "../lib/router";
import { Bars, StackedColumns } from "../ui/charts";
import { ErrorNotice, Loading } from "../ui/feedback";
import { duration, percent, titleCase } from "../ui/format";
import { Select } from "../ui/inputs";
import { channels } from "./inbox/labels";

type Figures = AnalyticsPageQuery["analytics"];

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const daysAgo = (days: number) => isoDay(new Date(Date.now() - days * 86_400_000));

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** What the page shows, as CSV: the figures, the series (by channel), and each list. */
export function analyticsCsv(a: Figures): string {
  const keys = [...new Set(a.series.flatMap((b) => b.conversationsByChannel.map((c) => c.key)))].sort();
  const rows: unknown[][] = [
    ["Parley analytics", a.from, a.to, a.channel ?? "all channels"],
    [],
    ["figure", "value"],
    ["conversations", a.conversations.total],
    ["ai_resolved", a.aiResolved],
    ["ai_resolution_rate", a.aiResolutionRate],
    ["escalated", a.escalated],
    ["escalation_rate", a.escalationRate],
    ["escalations", a.escalations.total],
    ["escalations_out_of_hours", a.escalations.outOfHours],
    ["thumbs_up", a.feedback.up],
    ["thumbs_down", a.feedback.down],
    ["thumbs_up_rate", a.feedback.rate],
    ["satisfaction_asked", a.feedback.satisfaction.asked],
    ["satisfaction_answered", a.feedback.satisfaction.answered],
    ["satisfaction_average", a.feedback.satisfaction.average],
    ["first_response_median_seconds", a.firstResponseTime.medianSeconds],
    ["first_response_p90_seconds", a.firstResponseTime.p90Seconds],
    ["resolution_median_seconds", a.resolutionTime.medianSeconds],
    ["resolution_p90_seconds", a.resolutionTime.p90Seconds],
    ["knowledge_coverage_rate", a.knowledgeCoverage.rate],
    ["listed_questions_offered", a.listedQuestions.offered],
    ["listed_questions_chosen", a.listedQuestions.chosen],
    ["messages", a.messages.total],
    ["tokens_used", a.tokensUsed],
    [],
    [a.granularity === "week" ? "week" : "day", "conversations", ...keys, "escalations"],
    ...a.series.map((b) => [
      b.start.slice(0, 10),
      b.conversations,
      ...keys.map((k) => b.conversationsByChannel.find((c) => c.key === k)?.count ?? 0),
      b.escalations,
    ]),
    [],
    ["intent", "customer messages"],
    ...a.topIntents.map((i) => [i.key, i.count]),
    [],
    ["escalation reason", "escalations"],
    ...a.escalations.byReason.map((r) => [r.key, r.count]),
    [],
    [
      "channel",
      "thumbs up",
      "thumbs down",
      "thumbs up rate",
      "satisfaction asked",
      "satisfaction answered",
      "satisfaction average",
    ],
    ...a.feedback.byChannel.map((c) => [
      c.channel,
      c.up,
      c.down,
      c.rate,
      c.satisfaction.asked,
      c.satisfaction.answered,
      c.satisfaction.average,
    ]),
    [],
    ["unanswered question", "times asked", "last asked"],
    ...a.unansweredQuestions.map((q) => [q.question, q.count, q.lastAskedAt]),
  ];
  return `${rows.map((row) => row.map(csvCell).join(",")).join("\n")}\n`;
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  window.setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

function Card({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <p className="card">
      <span className="value">{value}</span> {label}
      {detail && <span className="muted small"> · {detail}</span>}
    </p>
  );
}

export default function AnalyticsPage() {
  const [from, setFrom] = useSearchParam("from");
  const [to, setTo] = useSearchParam("to");
  const [channel, setChannel] = useSearchParam("channel");
  const [granularity, setGranularity] = useSearchParam("granularity");
  const fromDay = from || daysAgo(29);
  const toDay = to || isoDay(new Date());
  const result = useQuery(AnalyticsPageDocument, {
    from: `${fromDay}T00:00:00Z`,
    to: new Date(new Date(`${toDay}T00:00:00Z`).getTime() + 86_400_000).toISOString(),
    channel: (channel || null) as Channel | null,
    granularity: (granularity || "day") as Granularity,
  });
  const a = result.data?.analytics;
  const keys = a ? [...new Set(a.series.flatMap((b) => b.conversationsByChannel.map((c) => c.key)))].sort() : [];
  return (
    <section aria-labelledby="analytics-heading">
      <h1 id="analytics-heading">Analytics</h1>
      <form className="row filters-row" onSubmit={(e) => e.preventDefault()}>
        <label className="inline">
          From
          <input type="date" value={fromDay} max={toDay} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label className="inline">
          To
          <input type="date" value={toDay} min={fromDay} onChange={(e) => setTo(e.target.value)} />
        </label>
        <Select className="field inline" label="Channel" value={channel} onChange={(e) => setChannel(e.target.value)}>
          <option value="">All</option>
          {channels.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </Select>
        <Select
          className="field inline"
          label="Per"
          value={granularity || "day"}
          onChange={(e) => setGranularity(e.target.value === "day" ? "" : e.target.value)}
        >
          <option value="day">day</option>
          <option value="week">week</option>
        </Select>
        <button
          type="button"
          className="secondary"
          disabled={!a}
          onClick={() =>
            a && download(`parley-analytics-${fromDay}-${toDay}${channel ? `-${channel}` : ""}.csv`, analyticsCsv(a))
          }
        >
          Download CSV
        </button>
      </form>
      <ErrorNotice error={result.error} />
      {!a ? (
        <Loading what="the figures" />
      ) : (
        <>
          <div className="cards">
            <Card label="conversations" value={a.conversations.total.toLocaleString()} />
            <Card label="resolved by the AI" value={percent(a.aiResolutionRate)} detail={`${a.aiResolved} conversations`} />
            <Card label="escalated" value={percent(a.escalationRate)} detail={`${a.escalated} conversations`} />
            <Card
              label="hand-offs asked out of hours"
              value={a.escalations.outOfHours.toLocaleString()}
              detail={`of ${a.escalations.total} escalations`}
            />
            <Card
              label="thumbs up on AI replies"
              value={percent(a.feedback.rate)}
              detail={`${a.feedback.up} up, ${a.feedback.down} down`}
            />
            <Card
              label="satisfaction (1 to 5)"
              value={a.feedback.satisfaction.average === null ? "—" : a.feedback.satisfaction.average.toFixed(1)}
              detail={`${a.feedback.satisfaction.answered} of ${a.feedback.satisfaction.asked} answered`}
            />
            <Card
              label="first response (median)"
              value={duration(a.firstResponseTime.medianSeconds)}
              detail={`p90 ${duration(a.firstResponseTime.p90Seconds)}`}
            />
            <Card
              label="resolution (median)"
              value={duration(a.resolutionTime.medianSeconds)}
              detail={`p90 ${duration(a.resolutionTime.p90Seconds)}`}
            />
            <Card
              label="answers grounded in knowledge"
              value={percent(a.knowledgeCoverage.rate)}
              detail={`${a.knowledgeCoverage.grounded} of ${a.knowledgeCoverage.answers}`}
            />
            <Card
              label="listed questions chosen"
              value={percent(a.listedQuestions.rate)}
              detail={`${a.listedQuestions.chosen} of ${a.listedQuestions.offered} declines that listed some`}
            />
          </div>
          <h2>Conversations per {a.granularity} by channel</h2>
          <StackedColumns
            title={`Conversations per ${a.granularity} by channel`}
            keys={keys}
            columns={a.series.map((b) => ({
              label: b.start.slice(5, 10),
              parts: b.conversationsByChannel.map((c) => ({ key: c.key, value: c.count })),
            }))}
          />
          <div className="grid-2">
            <Bars title="Top intents" items={a.topIntents} />
            <Bars
              title="Escalation reasons"
              items={a.escalations.byReason.map((r) => ({ key: titleCase(r.key), count: r.count }))}
            />
          </div>
          <h2>Unanswered questions</h2>
          {a.unansweredQuestions.length === 0 ? (
            <p className="muted">None in this period.</p>
          ) : (
            <ol>
              {a.unansweredQuestions.map((q) => (
                <li key={q.question}>
                  “{q.question}” <span className="muted">— asked {q.count}×</span>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
