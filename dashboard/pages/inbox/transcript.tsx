import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import type { TranscriptMessageFragment } from "../../generated";
import { Link } from "../../lib/router";
import { Badge } from "../../ui/feedback";
import { formatDateTime, titleCase } from "../../ui/format";

interface Metadata {
  intent?: string;
  confidence?: number;
  agentType?: string;
  grounded?: boolean;
  agentName?: string | null;
  sources?: Array<{ sourceId: string; title: string; url?: string | null; score?: number; similarity?: number }>;
}

const roleNames: Record<string, string> = {
  customer: "Customer",
  assistant: "AI",
  agent: "Agent",
  note: "Private note",
  system: "System",
};

function AiFacts({ metadata }: { metadata: Metadata }) {
  return (
    <ul className="facts" aria-label="How the AI answered">
      {metadata.intent && <li>Intent: {metadata.intent}</li>}
      {typeof metadata.confidence === "number" && <li>Confidence: {Math.round(metadata.confidence * 100)} %</li>}
      {metadata.agentType && <li>{titleCase(metadata.agentType)}</li>}
      {metadata.grounded === false && <li className="warn-text">Not grounded in the knowledge base</li>}
    </ul>
  );
}

function Sources({ sources: cited }: { sources: NonNullable<Metadata["sources"]> }) {
  // A source cited through several of its chunks is linked once.
  const sources = [...new Map(cited.map((s) => [s.sourceId, s])).values()];
  if (!sources.length) return null;
  return (
    <div className="sources">
      <span className="muted">Sources: </span>
      {sources.map((source, i) => (
        <span key={source.sourceId}>
          {i > 0 && ", "}
          {source.url ? (
            <a href={source.url} target="_blank" rel="noreferrer noopener">
              {source.title}
            </a>
          ) : (
            <Link to={`/dashboard/knowledge?source=${source.sourceId}`}>{source.title}</Link>
          )}
        </span>
      ))}
    </div>
  );
}

function Delivery({ delivery }: { delivery: NonNullable<TranscriptMessageFragment["delivery"]> }) {
  const tone = delivery.status === "sent" ? "ok" : delivery.status === "failed" ? "danger" : "warn";
  return (
    <span className="delivery">
      <Badge tone={tone}>{delivery.status}</Badge>
      {delivery.attempts > 1 && <span className="muted"> after {delivery.attempts} attempts</span>}
      {delivery.error && <span className="muted"> — {delivery.error}</span>}
    </span>
  );
}

export function MessageItem({ message }: { message: TranscriptMessageFragment }) {
  const metadata = (message.metadata ?? {}) as Metadata;
  const author =
    message.role === "agent" || message.role === "note"
      ? `${roleNames[message.role]}${metadata.agentName ? ` — ${metadata.agentName}` : ""}`
      : (roleNames[message.role] ?? message.role);
  return (
    <article className={`message ${message.role}`} aria-label={`${author}, ${formatDateTime(message.createdAt)}`}>
      <header>
        <strong>{author}</strong>
        <time dateTime={message.createdAt} className="muted">
          {formatDateTime(message.createdAt)}
        </time>
        {message.delivery && <Delivery delivery={message.delivery} />}
      </header>
      <p className="content">{message.content}</p>
      {message.role === "assistant" && (
        <>
          <AiFacts metadata={metadata} />
          <Sources sources={metadata.sources ?? []} />
        </>
      )}
      {message.role === "customer" && metadata.intent && <p className="muted small">Intent: {metadata.intent}</p>}
    </article>
  );
}

/**
 * The transcript, virtualised: only the messages on screen are in the page, so 5,000 of them scroll as smoothly as
 * 5; the pages of messages load as they come into view, newest first.
 */
export function Transcript({
  total,
  rows,
  ensure,
}: {
  total: number;
  rows: Map<number, TranscriptMessageFragment>;
  ensure: (first: number, last: number) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (total) ensure(first, last);
  }, [first, last, total, ensure]);
  // Opens at the newest message, and follows new ones while the reader is at the bottom.
  const atBottom = useRef(true);
  useEffect(() => {
    if (total && atBottom.current) virtualizer.scrollToIndex(total - 1, { align: "end" });
  }, [total, virtualizer]);
  return (
    <div
      ref={scroller}
      className="virtual-scroll transcript"
      role="log"
      aria-label="Transcript"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the transcript scrolls on its own, and keyboards must reach it
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      }}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {items.map((item) => {
          const message = rows.get(item.index);
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="virtual-row"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {message ? <MessageItem message={message} /> : <p className="muted placeholder">Loading…</p>}
            </div>
          );
        })}
      </div>
    </div>
  );
}
