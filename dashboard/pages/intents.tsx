import { createColumnHelper } from "@tanstack/react-table";
import { useState } from "react";
import {
  ClassifyIntentsDocument,
  type ClassifyIntentsQuery,
  CreateIntentDocument,
  DeleteIntentDocument,
  ImportIntentExamplesDocument,
  IntentsPageDocument,
  type IntentsPageQuery,
  UpdateIntentDocument,
} from "../generated";
import { gql } from "../lib/api";
import { parseCsv } from "../lib/csv";
import { useAction, useQuery } from "../lib/query";
import { useCan } from "../lib/session";
import { Badge, ErrorNotice, Status } from "../ui/feedback";
import { Select } from "../ui/inputs";
import { DataTable } from "../ui/table";

type Intent = IntentsPageQuery["intents"][number];
const column = createColumnHelper<Intent>();
const agentTypes = ["faq", "support", "smalltalk", "handoff"];
const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

function Classifier() {
  const [text, setText] = useState("");
  const [results, setResults] = useState<Array<{ text: string } & ClassifyIntentsQuery["classifyIntents"][number]> | null>(null);
  const classify = useAction(async () => {
    const texts = [...new Set(lines(text))];
    const { classifyIntents } = await gql(ClassifyIntentsDocument, { texts });
    setResults(classifyIntents.map((prediction, i) => ({ text: texts[i]!, ...prediction })));
  });
  return (
    <section className="panel" aria-labelledby="classifier-heading">
      <h2 id="classifier-heading">Try the classifier</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void classify.run();
        }}
      >
        <label>
          Customer messages, one per line
          <textarea rows={3} required value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <div>
          <button type="submit" disabled={classify.pending}>
            Classify
          </button>
        </div>
      </form>
      <ErrorNotice error={classify.error} />
      {results && (
        <ul className="plain" aria-label="Predictions">
          {results.map((r) => (
            <li key={r.text}>
              “{r.text}” → <strong>{r.intent}</strong> <span className="muted">({Math.round(r.confidence * 100)} %)</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CsvImport({ onImported }: { onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [replace, setReplace] = useState(false);
  const [done, setDone] = useState("");
  const upload = useAction(async () => {
    const rows = parseCsv(await file!.text());
    const body = rows[0]?.[0]?.trim().toLowerCase() === "text" ? rows.slice(1) : rows;
    const examples = body.filter((r) => r.length >= 2).map(([text, intent]) => ({ text: text!.trim(), intent: intent!.trim() }));
    const { importIntentExamples: result } = await gql(ImportIntentExamplesDocument, { examples, replace });
    setDone(`Imported ${result.examples} examples into ${result.intents} intents (${result.created} new).`);
    onImported();
  });
  return (
    <form
      className="panel stack"
      aria-labelledby="import-heading"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void upload.run();
      }}
    >
      <h2 id="import-heading">Import examples from CSV</h2>
      <label>
        CSV file with the columns text,intent
        <input type="file" accept=".csv,text/csv" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>
      <label className="check">
        <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} /> Replace all current intents
      </label>
      <ErrorNotice error={upload.error} />
      {done && <Status>{done}</Status>}
      <div>
        <button type="submit" disabled={upload.pending}>
          Import
        </button>
      </div>
    </form>
  );
}

function NewIntent({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [agentType, setAgentType] = useState("faq");
  const [urgent, setUrgent] = useState(false);
  const [examples, setExamples] = useState("");
  const create = useAction(async () => {
    await gql(CreateIntentDocument, { name, agentType, urgent, examples: lines(examples) });
    setName("");
    setExamples("");
    onCreated();
  });
  return (
    <form
      className="panel stack"
      aria-labelledby="new-intent-heading"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2 id="new-intent-heading">New intent</h2>
      <label>
        Name
        <input
          required
          pattern="[a-z0-9_]+"
          title="lower case letters, digits and _"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <Select label="Who answers" value={agentType} onChange={(e) => setAgentType(e.target.value)}>
        {agentTypes.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </Select>
      <label className="check">
        <input type="checkbox" checked={urgent} onChange={(e) => setUrgent(e.target.checked)} /> Urgent: hand to a person at once
      </label>
      <label>
        Examples, one per line
        <textarea rows={4} value={examples} onChange={(e) => setExamples(e.target.value)} />
      </label>
      <ErrorNotice error={create.error} />
      <div>
        <button type="submit" disabled={create.pending}>
          Create intent
        </button>
      </div>
    </form>
  );
}

function Examples({ intent, onChanged }: { intent: Intent; onChanged: () => void }) {
  const mayConfigure = useCan("configure");
  const [text, setText] = useState(intent.examples.join("\n"));
  const save = useAction(async (work: "save" | "delete") => {
    if (work === "save") await gql(UpdateIntentDocument, { id: intent.id, examples: lines(text) });
    else await gql(DeleteIntentDocument, { id: intent.id });
    onChanged();
  });
  return (
    <details>
      <summary>
        {intent.examples.length} examples<span className="visually-hidden"> of {intent.name}</span>
      </summary>
      <label>
        Examples of {intent.name}, one per line
        <textarea rows={5} value={text} readOnly={!mayConfigure} onChange={(e) => setText(e.target.value)} />
      </label>
      {mayConfigure && (
        <div className="row">
          <button type="button" disabled={save.pending} onClick={() => void save.run("save")}>
            Save examples<span className="visually-hidden"> of {intent.name}</span>
          </button>
          <button type="button" className="secondary" disabled={save.pending} onClick={() => void save.run("delete")}>
            Delete intent<span className="visually-hidden"> {intent.name}</span>
          </button>
        </div>
      )}
      <ErrorNotice error={save.error} />
    </details>
  );
}

export default function IntentsPage() {
  const mayConfigure = useCan("configure");
  const page = useQuery(IntentsPageDocument, {});
  const reload = () => void page.reload();
  const columns = [
    column.accessor("name", { header: "Intent" }),
    column.accessor("agentType", { header: "Who answers" }),
    column.accessor("urgent", {
      header: "Urgent",
      cell: (info) => (info.getValue() ? <Badge tone="danger">urgent</Badge> : "—"),
    }),
    column.display({
      id: "examples",
      header: "Examples",
      cell: (info) => <Examples key={info.row.original.updatedAt} intent={info.row.original} onChanged={reload} />,
    }),
  ];
  const intents = page.data?.intents ?? [];
  return (
    <section aria-labelledby="intents-heading">
      <h1 id="intents-heading">Intents</h1>
      <p className="hint">
        The tenant's intents and their examples train its classifier.{" "}
        {intents.length === 0 && "Until you define some, the built-in set applies."}
      </p>
      <ErrorNotice error={page.error} />
      <Classifier />
      {mayConfigure && (
        <div className="grid-2">
          <NewIntent onCreated={reload} />
          <CsvImport onImported={reload} />
        </div>
      )}
      <DataTable
        caption="Intents"
        columns={columns}
        data={intents}
        empty={page.loading ? "Loading…" : "No intents of your own"}
      />
    </section>
  );
}
