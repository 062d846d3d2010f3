import { createColumnHelper } from "@tanstack/react-table";
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import {
  AddSourceDocument,
  DeleteSourceDocument,
  KnowledgePageDocument,
  KnowledgeSourceChangedDocument,
  ResyncSourceDocument,
  SearchKnowledgeDocument,
  type SearchKnowledgeQuery,
  type SourceRowFragment,
  UnansweredQuestionsDocument,
  UploadPdfDocument,
} from "../generated";
import { gql, gqlUpload } from "../lib/api";
import { useSubscription } from "../lib/live";
import { useAction, useQuery } from "../lib/query";
import { Link } from "../lib/router";
import { useCan } from "../lib/session";
import { Badge, ErrorNotice, Status } from "../ui/feedback";
import { ago, formatDateTime } from "../ui/format";
import { DataTable } from "../ui/table";

const column = createColumnHelper<SourceRowFragment>();
const busy = new Set(["pending", "crawling", "indexing"]);
const statusTone: Record<string, string> = { ready: "ok", failed: "danger", pending: "info", crawling: "warn", indexing: "warn" };

function StatusCell({ source }: { source: SourceRowFragment }) {
  const progress = source.progress;
  return (
    <>
      <Badge tone={statusTone[source.status]}>{source.status}</Badge>
      {busy.has(source.status) && progress && (
        <>
          {" "}
          <progress max={Math.max(progress.discovered, 1)} value={progress.done} aria-label={`Crawl of ${source.title}`} />{" "}
          <span className="muted small">
            {progress.done}/{progress.discovered} pages
          </span>
        </>
      )}
      {source.error && <p className="small warn-text">{source.error}</p>}
    </>
  );
}

function RowActions({ source, onChanged }: { source: SourceRowFragment; onChanged: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const act = useAction(async (kind: "sync" | "delete") => {
    if (kind === "sync") await gql(ResyncSourceDocument, { id: source.id });
    else await gql(DeleteSourceDocument, { id: source.id });
    setConfirming(false);
    onChanged();
  });
  return (
    <div className="row">
      <button
        type="button"
        className="secondary"
        disabled={act.pending || busy.has(source.status)}
        onClick={() => void act.run("sync")}
      >
        Resync<span className="visually-hidden"> {source.title}</span>
      </button>
      {confirming ? (
        <button type="button" className="danger" disabled={act.pending} onClick={() => void act.run("delete")}>
          Confirm delete<span className="visually-hidden"> of {source.title}</span>
        </button>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirming(true)}>
          Delete<span className="visually-hidden"> {source.title}</span>
        </button>
      )}
      <ErrorNotice error={act.error} />
    </div>
  );
}

type Kind = "url" | "manual" | "pdf";

function AddSource({
  onAdded,
  prefill,
}: {
  onAdded: () => void;
  prefill: { title: string; content: string; key: number } | null;
}) {
  const [kind, setKind] = useState<Kind>("url");
  const [url, setUrl] = useState("");
  const [title, setTitle] = useState("");
  const [content, setContent] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [done, setDone] = useState("");
  const contentBox = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (!prefill) return;
    setKind("manual");
    setTitle(prefill.title);
    setContent(prefill.content);
    window.setTimeout(() => contentBox.current?.focus(), 0);
  }, [prefill]);
  const add = useAction(async () => {
    const added =
      kind === "pdf"
        ? (await gqlUpload(UploadPdfDocument, { file: null as unknown as File, title: title || null }, "file", file!))
            .uploadPdfSource
        : (
            await gql(AddSourceDocument, {
              type: kind,
              ...(kind === "url" ? { sourceUrl: url } : { title, content }),
            })
          ).addKnowledgeSource;
    setDone(`Added "${added.title}" (${added.status}).`);
    setUrl("");
    setTitle("");
    setContent("");
    setFile(null);
    onAdded();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone("");
    void add.run();
  };
  return (
    <form className="panel stack" onSubmit={submit} aria-labelledby="add-source-heading">
      <h2 id="add-source-heading">Add a source</h2>
      <fieldset className="row plain-fieldset">
        <legend>Kind</legend>
        {(
          [
            ["url", "Web site (URL)"],
            ["manual", "Text"],
            ["pdf", "PDF"],
          ] as Array<[Kind, string]>
        ).map(([value, label]) => (
          <label key={value} className="check">
            <input type="radio" name="kind" value={value} checked={kind === value} onChange={() => setKind(value)} /> {label}
          </label>
        ))}
      </fieldset>
      {kind === "url" && (
        <label>
          Address
          <input
            type="url"
            required
            placeholder="https://www.your-bank.com/help"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </label>
      )}
      {kind !== "url" && (
        <label>
          Title{kind === "pdf" ? " (optional)" : ""}
          <input required={kind === "manual"} value={title} onChange={(e) => setTitle(e.target.value)} />
        </label>
      )}
      {kind === "manual" && (
        <label>
          Text
          <textarea ref={contentBox} required rows={6} value={content} onChange={(e) => setContent(e.target.value)} />
        </label>
      )}
      {kind === "pdf" && (
        <label>
          PDF file (at most 20 MiB)
          <input type="file" accept="application/pdf" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </label>
      )}
      <ErrorNotice error={add.error} />
      {done && <Status>{done}</Status>}
      <div>
        <button type="submit" disabled={add.pending}>
          {add.pending ? "Adding…" : "Add source"}
        </button>
      </div>
    </form>
  );
}

function TestConsole() {
  const [query, setQuery] = useState("");
  const [topK, setTopK] = useState(5);
  const [hits, setHits] = useState<SearchKnowledgeQuery["searchKnowledge"] | null>(null);
  const search = useAction(async () => setHits((await gql(SearchKnowledgeDocument, { query, topK })).searchKnowledge));
  return (
    <section className="panel" aria-labelledby="console-heading">
      <h2 id="console-heading">Test your knowledge base</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void search.run();
        }}
      >
        <label className="grow">
          A customer's question
          <input required value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
        <label>
          Chunks
          <input type="number" min={1} max={20} value={topK} onChange={(e) => setTopK(Number(e.target.value))} />
        </label>
        <button type="submit" disabled={search.pending}>
          Search
        </button>
      </form>
      <ErrorNotice error={search.error} />
      {hits && (
        <ol className="hits" aria-label="Chunks the AI would be given, best first">
          {hits.length === 0 && <li className="muted">Nothing in the knowledge base matches.</li>}
          {hits.map((hit) => (
            <li key={hit.chunkId}>
              <p>
                <strong>{hit.sourceTitle}</strong>
                {hit.title && hit.title !== hit.sourceTitle && <> — {hit.title}</>}
                {hit.page ? `, page ${hit.page}` : ""}{" "}
                <span className="muted">
                  score {hit.score.toFixed(4)} · similarity {hit.similarity.toFixed(3)}
                </span>
              </p>
              <p className="chunk">{hit.text}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Unanswered({ onAnswer }: { onAnswer: (question: string) => void }) {
  const mayConfigure = useCan("configure");
  const questions = useQuery(UnansweredQuestionsDocument, {});
  const list = questions.data?.analytics.unansweredQuestions ?? [];
  return (
    <section className="panel" aria-labelledby="unanswered-heading">
      <h2 id="unanswered-heading">Unanswered questions (last 30 days)</h2>
      <ErrorNotice error={questions.error} />
      {list.length === 0 ? (
        <p className="muted">{questions.loading ? "Loading…" : "None: every question found an answer."}</p>
      ) : (
        <ul className="plain">
          {list.map((q) => (
            <li key={q.question} className="row">
              <span className="grow">
                “{q.question}”{" "}
                <span className="muted">
                  asked {q.count}×, last {ago(q.lastAskedAt)}
                </span>{" "}
                <Link to={`/dashboard/inbox/${q.conversationId}`}>latest conversation</Link>
              </span>
              {mayConfigure && (
                <button type="button" className="secondary" onClick={() => onAnswer(q.question)}>
                  Answer it<span className="visually-hidden">: {q.question}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function KnowledgePage() {
  const mayConfigure = useCan("configure");
  const page = useQuery(KnowledgePageDocument, {});
  const [prefill, setPrefill] = useState<{ title: string; content: string; key: number } | null>(null);
  const sources = page.data?.knowledgeSources ?? [];
  // Crawls and indexing run in the workers: each change of a source's status or progress comes live, and the page
  // reads the sources and their summary again.
  const { reload } = page;
  useSubscription(KnowledgeSourceChangedDocument, {}, () => void reload(), { onReconnected: () => void reload() });
  const summary = page.data?.knowledgeSummary;
  // The same cells from one render to the next: a live update re-renders the table, and new cell functions would be
  // new components, forgetting a row's state (a delete waiting for its confirmation).
  const columns = useMemo(
    () => [
      column.accessor("title", {
        header: "Source",
        cell: (info) => {
          const s = info.row.original;
          return (
            <>
              {s.sourceUrl ? (
                <a href={s.sourceUrl} target="_blank" rel="noreferrer noopener">
                  {s.title}
                </a>
              ) : (
                s.title
              )}
              <span className="muted small"> · {s.type}</span>
            </>
          );
        },
      }),
      column.accessor("status", { header: "Status", cell: (info) => <StatusCell source={info.row.original} /> }),
      column.accessor("pages", { header: "Pages" }),
      column.accessor("chunks", { header: "Chunks" }),
      column.accessor("lastSyncedAt", { header: "Last synced", cell: (info) => formatDateTime(info.getValue()) }),
      ...(mayConfigure
        ? [
            column.display({
              id: "actions",
              header: "Actions",
              cell: (info) => <RowActions source={info.row.original} onChanged={() => void reload()} />,
            }),
          ]
        : []),
    ],
    [mayConfigure, reload],
  );
  return (
    <section aria-labelledby="knowledge-heading">
      <h1 id="knowledge-heading">Knowledge</h1>
      <ErrorNotice error={page.error} />
      {summary && (
        <div className="cards">
          <p className="card">
            <span className="value">{summary.sources}</span> sources
          </p>
          <p className="card">
            <span className="value">{summary.chunks.toLocaleString()}</span> chunks
          </p>
          <p className="card">
            <span className="value">{summary.tokens.toLocaleString()}</span> tokens
          </p>
          <p className="card">
            <span className="value small-value">{formatDateTime(summary.lastSyncedAt)}</span> last sync
          </p>
        </div>
      )}
      <div className="grid-2">
        {mayConfigure && (
          <AddSource
            prefill={prefill}
            onAdded={() => {
              setPrefill(null);
              void reload();
            }}
          />
        )}
        <TestConsole />
      </div>
      <Unanswered onAnswer={(question) => setPrefill({ title: question, content: `Q: ${question}\nA: `, key: Date.now() })} />
      <h2>Sources</h2>
      <DataTable
        caption="Knowledge sources, newest first"
        columns={columns}
        data={sources}
        empty={page.loading ? "Loading…" : "No sources yet"}
      />
    </section>
  );
}
