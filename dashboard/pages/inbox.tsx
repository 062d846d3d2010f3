import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef } from "react";
import {
  type Channel,
  ConversationActivityDocument,
  type ConversationStatus,
  type ConversationSummaryFragment,
  InboxListDocument,
  type InboxListQueryVariables,
} from "../generated";
import { gql } from "../lib/api";
import { useSubscription } from "../lib/live";
import { usePagedRows } from "../lib/paged";
import { Link, useLocation, useSearchParam } from "../lib/router";
import { useSession } from "../lib/session";
import { Badge, ErrorNotice } from "../ui/feedback";
import { ago, titleCase } from "../ui/format";
import { DebouncedInput, Select } from "../ui/inputs";
import { ConversationView } from "./inbox/conversation";
import { channels, conversationStatuses, customerLabel, statusTone } from "./inbox/labels";

const pageSize = 100;
const rowHeight = 76;

type Queue = "mine" | "unassigned" | "all";

/** Reads the list again shortly after live events, once for a burst of them. */
function useDebounced(action: () => void, ms: number) {
  const timer = useRef<number | undefined>(undefined);
  const latest = useRef(action);
  latest.current = action;
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return () => {
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => latest.current(), ms);
  };
}

function Filters() {
  const [status, setStatus] = useSearchParam("status");
  const [channel, setChannel] = useSearchParam("channel");
  const [intent, setIntent] = useSearchParam("intent");
  const [q, setQ] = useSearchParam("q");
  const [from, setFrom] = useSearchParam("from");
  const [to, setTo] = useSearchParam("to");
  return (
    <details className="filters">
      <summary>Filters{[status, channel, intent, q, from, to].some(Boolean) ? " (on)" : ""}</summary>
      <div className="filter-grid">
        <label>
          Search
          <DebouncedInput type="search" value={q} placeholder="Phone, name, id or text" onValue={setQ} />
        </label>
        <Select label="Channel" value={channel} onChange={(e) => setChannel(e.target.value)}>
          <option value="">Any</option>
          {channels.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </Select>
        <Select label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any</option>
          {conversationStatuses.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
        <label>
          Intent
          <DebouncedInput value={intent} placeholder="e.g. card_lost_or_stolen" onValue={setIntent} />
        </label>
        <label>
          From
          <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To
          <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
    </details>
  );
}

function ConversationRow({
  conversation,
  selected,
  search,
}: {
  conversation: ConversationSummaryFragment;
  selected: boolean;
  search: string;
}) {
  const escalation = conversation.openEscalation;
  return (
    <Link
      to={`/dashboard/inbox/${conversation.id}${search}`}
      className={`conversation-row${selected ? " selected" : ""}`}
      aria-current={selected ? "true" : undefined}
    >
      <span className="row-top">
        <strong>{customerLabel(conversation)}</strong>
        <span className="muted">{ago(conversation.updatedAt)}</span>
      </span>
      <span className="row-meta">
        <Badge>{conversation.channel}</Badge>
        <Badge tone={statusTone(conversation.status)}>{conversation.status}</Badge>
        {escalation && <Badge tone={escalation.priority === "urgent" ? "danger" : "warn"}>{titleCase(escalation.reason)}</Badge>}
        {escalation?.assignee && <span className="muted">→ {escalation.assignee.name}</span>}
      </span>
      <span className="preview">{conversation.lastMessage?.content ?? "No messages"}</span>
    </Link>
  );
}

function ConversationList({ selectedId }: { selectedId: string | null }) {
  const session = useSession()!;
  const { search } = useLocation();
  const [queueParam, setQueue] = useSearchParam("queue");
  const canHaveOwn = session.user.role !== "viewer";
  const queue: Queue = queueParam === "mine" && canHaveOwn ? "mine" : queueParam === "unassigned" ? "unassigned" : "all";
  const params = new URLSearchParams(search);
  const dayStart = (day: string) => (day ? new Date(`${day}T00:00:00`).toISOString() : null);
  const dayEnd = (day: string) => (day ? new Date(`${day}T23:59:59.999`).toISOString() : null);
  const variables: InboxListQueryVariables = {
    mine: queue === "mine" || null,
    unassigned: queue === "unassigned" || null,
    status: (params.get("status") || null) as ConversationStatus | null,
    channel: (params.get("channel") || null) as Channel | null,
    intent: params.get("intent") || null,
    q: params.get("q") || null,
    from: dayStart(params.get("from") ?? ""),
    to: dayEnd(params.get("to") ?? ""),
  };
  const key = JSON.stringify(variables);
  const list = usePagedRows(
    async (page, limit) => (await gql(InboxListDocument, { ...variables, page, limit })).conversations,
    pageSize,
    key,
  );
  const refresh = useDebounced(() => void list.refresh(), 250);
  useSubscription(ConversationActivityDocument, {}, refresh, { onReconnected: refresh });

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: list.total ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (list.total) list.ensure(first, last);
  }, [first, last, list.total, list.ensure]);

  const queues: Array<[Queue, string]> = useMemo(
    () => [...(canHaveOwn ? ([["mine", "Mine"]] as Array<[Queue, string]>) : []), ["unassigned", "Unassigned"], ["all", "All"]],
    [canHaveOwn],
  );
  return (
    <section className={`inbox-list${selectedId ? " has-selection" : ""}`} aria-labelledby="inbox-heading">
      <h1 id="inbox-heading">Inbox</h1>
      <fieldset className="tabs">
        <legend className="visually-hidden">Queue</legend>
        {queues.map(([value, label]) => (
          <button key={value} type="button" aria-pressed={queue === value} onClick={() => setQueue(value === "all" ? "" : value)}>
            {label}
          </button>
        ))}
      </fieldset>
      <Filters />
      <p className="muted" role="status" aria-live="polite">
        {list.total === null ? "Loading conversations…" : `${list.total.toLocaleString()} conversations`}
      </p>
      <ErrorNotice error={list.error} />
      <div ref={scroller} className="virtual-scroll">
        <ul className="virtual-list" aria-label="Conversations" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const conversation = list.rows.get(item.index);
            return (
              <li key={item.key} className="virtual-row" style={{ transform: `translateY(${item.start}px)`, height: item.size }}>
                {conversation ? (
                  <ConversationRow conversation={conversation} selected={conversation.id === selectedId} search={search} />
                ) : (
                  <span className="muted placeholder">Loading…</span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}

export default function InboxPage({ rest }: { rest: string[] }) {
  const selectedId = rest[0] || null;
  return (
    <div className="inbox">
      <ConversationList selectedId={selectedId} />
      {selectedId ? (
        <ConversationView key={selectedId} conversationId={selectedId} />
      ) : (
        <section className="conversation empty-state">
          <p className="muted">Choose a conversation to read it, reply, or take it over from the AI.</p>
        </section>
      )}
    </div>
  );
}
