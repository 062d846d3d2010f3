import { useState } from "react";
import { type RetentionQuery, RunRetentionDocument, SetRetentionDocument } from "../../generated";
import { gql } from "../../lib/api";
import { useAction } from "../../lib/query";
import { ErrorNotice, Status } from "../../ui/feedback";

type Periods = Omit<RetentionQuery["tenant"]["retention"], "__typename">;
type DataClass = keyof Periods;

// The API's minimums are shown as hints only: the API checks them, and its answer says so in words.
const classes: Array<{ key: DataClass; title: string; what: string; minimum: number }> = [
  { key: "messages", title: "Conversations", what: "Messages, ratings, hand-offs and timeline, by last activity", minimum: 1 },
  {
    key: "identities",
    title: "Customer identities",
    what: "Phone numbers, channel ids and names on conversations (the transcript stays, anonymous)",
    minimum: 1,
  },
  { key: "auditRecords", title: "Audit records", what: "The oldest audit records", minimum: 365 },
  { key: "knowledgeFiles", title: "Knowledge files", what: "Uploaded PDFs, by last sync (their indexed text stays)", minimum: 1 },
  { key: "deliveryLogs", title: "Delivery logs", what: "Event notifications and their delivery logs", minimum: 7 },
];

/** A class's period as edited: kept for ever, or a number of days (text, so that a half-typed number stays). */
type Draft = Record<DataClass, { forever: boolean; days: string }>;

const draftOf = (periods: Periods): Draft =>
  Object.fromEntries(
    classes.map(({ key }) => [key, { forever: periods[key] === null, days: String(periods[key] ?? "") }]),
  ) as Draft;

/** How long each kind of data is kept, saved all at once (the form then shows what was saved); a run on request. */
export function Retention({ periods }: { periods: Periods }) {
  const [draft, setDraft] = useState(() => draftOf(periods));
  const [done, setDone] = useState("");
  const save = useAction(async () => {
    const input = Object.fromEntries(
      classes.map(({ key }) => [key, draft[key].forever ? null : Number(draft[key].days)]),
    ) as Periods;
    await gql(SetRetentionDocument, { periods: input });
    setDone("Retention periods saved.");
  });
  const run = useAction(async () => {
    const { runRetention } = await gql(RunRetentionDocument);
    setDone(`A retention run is queued (job ${runRetention}); its counts go to the audit trail.`);
  });
  const set = (key: DataClass, patch: Partial<Draft[DataClass]>) => setDraft({ ...draft, [key]: { ...draft[key], ...patch } });
  return (
    <form
      className="panel stack"
      aria-labelledby="retention-heading"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void save.run();
      }}
    >
      <h2 id="retention-heading">Retention periods</h2>
      <p className="hint">
        Data older than its period is deleted by a run every 6 hours; what a legal hold covers is kept whatever the period.
      </p>
      {classes.map(({ key, title, what, minimum }) => (
        <fieldset key={key} className="row">
          <legend>{title}</legend>
          <p className="hint grow">
            {what}. At least {minimum} {minimum === 1 ? "day" : "days"}.
          </p>
          <label className="check">
            <input type="checkbox" checked={draft[key].forever} onChange={(e) => set(key, { forever: e.target.checked })} /> Keep
            for ever
          </label>
          <label className="inline">
            Days kept
            <input
              type="number"
              inputMode="numeric"
              className="narrow"
              required={!draft[key].forever}
              disabled={draft[key].forever}
              value={draft[key].days}
              onChange={(e) => set(key, { days: e.target.value })}
            />
          </label>
        </fieldset>
      ))}
      <ErrorNotice error={save.error ?? run.error} />
      {done && <Status>{done}</Status>}
      <div className="row">
        <button type="submit" disabled={save.pending}>
          Save retention periods
        </button>
        <button type="button" className="secondary" disabled={run.pending} onClick={() => void run.run()}>
          Run retention now
        </button>
      </div>
    </form>
  );
}
