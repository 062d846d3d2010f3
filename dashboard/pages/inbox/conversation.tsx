import { useCallback, useState } from "react";
import {
  AddNoteDocument,
  AssignTargetsDocument,
  ConversationActivityDocument,
  type ConversationActivitySubscription,
  ConversationViewDocument,
  type ConversationViewQuery,
  CustomerConversationsDocument,
  EscalateDocument,
  type EscalationStatus,
  ReplyDocument,
  TranscriptDocument,
  type TranscriptMessageFragment,
  WorkEscalationDocument,
} from "../../generated";
import { gql } from "../../lib/api";
import { useDraft } from "../../lib/drafts";
import { useSubscription } from "../../lib/live";
import { usePagedRows } from "../../lib/paged";
import { useAction, useQuery } from "../../lib/query";
import { Link } from "../../lib/router";
import { useCan, useSession } from "../../lib/session";
import { Badge, ErrorNotice, Loading } from "../../ui/feedback";
import { ago, formatDateTime, titleCase } from "../../ui/format";
import { Select } from "../../ui/inputs";
import { customerLabel, statusTone } from "./labels";
import { Transcript } from "./transcript";

type Conversation = ConversationViewQuery["conversation"];
const transcriptPage = 100;

function Handoff({ conversation }: { conversation: Conversation }) {
  const escalation = conversation.openEscalation;
  if (!escalation) return null;
  return (
    <section className="handoff" aria-label="Why it was handed off">
      <p>
        <strong>Handed off: {titleCase(escalation.reason)}</strong> · priority {escalation.priority} · waiting since{" "}
        {ago(escalation.createdAt)} · {escalation.team ? `team ${escalation.team.name}` : "any team"} ·{" "}
        {escalation.assignee ? `with ${escalation.assignee.name}` : "nobody has it yet"}
      </p>
      {escalation.note && <p className="muted">Note: {escalation.note}</p>}
    </section>
  );
}

function Actions({ conversation, onChanged }: { conversation: Conversation; onChanged: () => void }) {
  const session = useSession()!;
  const mayConverse = useCan("converse");
  const mayAssignOthers = useCan("configure");
  const targets = useQuery(AssignTargetsDocument, {}, { skip: !mayConverse });
  const escalation = conversation.openEscalation;
  const act = useAction(async (work: () => Promise<unknown>) => {
    await work();
    onChanged();
  });
  if (!mayConverse || conversation.status === "closed") return null;
  const work = (variables: { assigneeId?: string | null; teamId?: string | null; status?: EscalationStatus }) =>
    act.run(() => gql(WorkEscalationDocument, { id: escalation!.id, ...variables }));
  const takeOver = () =>
    act.run(async () => {
      const { createEscalation } = await gql(EscalateDocument, {
        conversationId: conversation.id,
        note: "Taken over from the inbox",
      });
      if (session.user) await gql(WorkEscalationDocument, { id: createEscalation.id, assigneeId: session.user.id });
    });
  const agents = targets.data?.agents.items.filter((a) => a.role !== "viewer") ?? [];
  return (
    <fieldset className="actions">
      <legend className="visually-hidden">Work the conversation</legend>
      {!escalation && (
        <button type="button" onClick={() => void takeOver()} disabled={act.pending}>
          Take over from the AI
        </button>
      )}
      {escalation && escalation.assignee?.id !== session.user.id && (
        <button type="button" onClick={() => void work({ assigneeId: session.user.id })} disabled={act.pending}>
          Take it
        </button>
      )}
      {escalation && (mayAssignOthers || !escalation.assignee) && (
        <Select
          className="field inline"
          label="Assign to"
          value={escalation.assignee?.id ?? ""}
          disabled={act.pending}
          onChange={(e) => void work({ assigneeId: e.target.value || null })}
        >
          <option value="">Nobody (back to the queue)</option>
          {agents.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} ({a.availability})
            </option>
          ))}
        </Select>
      )}
      {escalation && (
        <Select
          className="field inline"
          label="Team"
          value={escalation.team?.id ?? ""}
          disabled={act.pending}
          onChange={(e) => void work({ teamId: e.target.value || null })}
        >
          <option value="">Any team</option>
          {(targets.data?.teams ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </Select>
      )}
      {escalation && (
        <button type="button" className="secondary" onClick={() => void work({ status: "resolved" })} disabled={act.pending}>
          Resolve
        </button>
      )}
      <ErrorNotice error={act.error ?? targets.error} />
    </fieldset>
  );
}

function Composer({
  conversation,
  onSent,
}: {
  conversation: Conversation;
  onSent: (message: TranscriptMessageFragment) => void;
}) {
  const [draft, setDraft, clearDraft] = useDraft(`reply.${conversation.id}`);
  const humansHaveIt = conversation.status === "escalated" || conversation.status === "assigned";
  const send = useAction(async (kind: "reply" | "note") => {
    const content = draft.trim();
    if (!content) return;
    const message =
      kind === "reply"
        ? (await gql(ReplyDocument, { conversationId: conversation.id, content })).replyToConversation
        : (await gql(AddNoteDocument, { conversationId: conversation.id, content })).addNote;
    clearDraft();
    onSent(message);
  });
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send.run("reply");
      }}
    >
      <label htmlFor="composer-text">Reply to the customer, or write a private note</label>
      <textarea
        id="composer-text"
        rows={3}
        value={draft}
        maxLength={4000}
        onChange={(e) => setDraft(e.target.value)}
        aria-describedby="composer-hint"
      />
      <p id="composer-hint" className="hint">
        {humansHaveIt
          ? `Replies go out on the customer's own channel (${conversation.channel}). Private notes stay with the team.`
          : "The AI has this conversation: take it over to reply. Private notes stay with the team."}
      </p>
      <ErrorNotice error={send.error} />
      <div className="row">
        <button type="submit" disabled={!humansHaveIt || send.pending || !draft.trim()}>
          Send reply
        </button>
        <button
          type="button"
          className="secondary"
          disabled={send.pending || !draft.trim()}
          onClick={() => void send.run("note")}
        >
          Add private note
        </button>
      </div>
    </form>
  );
}

function CustomerPanel({ conversation }: { conversation: Conversation }) {
  const previous = useQuery(
    CustomerConversationsDocument,
    { customerId: conversation.customerId ?? "", channel: conversation.channel },
    { skip: !conversation.customerId },
  );
  const others = previous.data?.conversations.items.filter((c) => c.id !== conversation.id) ?? [];
  return (
    <aside className="customer" aria-label="Customer">
      <h2>Customer</h2>
      <dl>
        <dt>Name</dt>
        <dd>{conversation.customerName ?? "—"}</dd>
        <dt>Phone</dt>
        <dd>{conversation.customerPhone ?? "—"}</dd>
        <dt>Channel</dt>
        <dd>{conversation.channel}</dd>
        <dt>Channel identity</dt>
        <dd className="break">{conversation.customerId ?? "—"}</dd>
        <dt>Since</dt>
        <dd>{formatDateTime(conversation.createdAt)}</dd>
      </dl>
      <h3>Previous conversations</h3>
      <ErrorNotice error={previous.error} />
      {others.length ? (
        <ul className="plain">
          {others.map((c) => (
            <li key={c.id}>
              <Link to={`/dashboard/inbox/${c.id}`}>{formatDateTime(c.createdAt)}</Link>{" "}
              <Badge tone={statusTone(c.status)}>{c.status}</Badge> <span className="muted">{c.messageCount} messages</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None</p>
      )}
    </aside>
  );
}

function Timeline({ conversation }: { conversation: Conversation }) {
  return (
    <details className="timeline">
      <summary>Timeline ({conversation.timeline.length} events)</summary>
      <ol>
        {conversation.timeline.map((event) => (
          <li key={event.id}>
            <time dateTime={event.createdAt}>{formatDateTime(event.createdAt)}</time>{" "}
            {event.type === "status" ? `${event.fromStatus ?? "new"} → ${event.toStatus}` : titleCase(event.type)}{" "}
            <span className="muted">
              by {event.actor}
              {event.reason ? ` (${event.reason})` : ""}
            </span>
          </li>
        ))}
      </ol>
    </details>
  );
}

/**
 * How far a message's delivery has come: a sent reply's own mutation result can arrive after the live event that
 * reported it sent, and must not take the transcript back to pending.
 */
function deliveryProgress(message: TranscriptMessageFragment): number {
  const delivery = message.delivery;
  if (!delivery) return -1;
  return delivery.attempts * 2 + (delivery.status === "pending" ? 0 : 1);
}

export function ConversationView({ conversationId }: { conversationId: string }) {
  const view = useQuery(ConversationViewDocument, { id: conversationId });
  const transcript = usePagedRows(
    async (page, limit) => (await gql(TranscriptDocument, { conversationId, page, limit })).conversationMessages,
    transcriptPage,
    conversationId,
  );
  const [announcement, setAnnouncement] = useState("");
  const { setRows, setTotal } = transcript;
  const append = useCallback(
    (message: TranscriptMessageFragment) => {
      setRows((rows) => {
        for (const [index, existing] of rows) {
          if (existing.id === message.id) {
            if (deliveryProgress(message) < deliveryProgress(existing)) return rows;
            const next = new Map(rows);
            next.set(index, message);
            return next;
          }
        }
        const next = new Map(rows);
        const size = Math.max(rows.size ? Math.max(...rows.keys()) + 1 : 0, transcript.total ?? 0);
        next.set(size, message);
        setTotal(size + 1);
        return next;
      });
    },
    [setRows, setTotal, transcript.total],
  );
  const onActivity = (data: ConversationActivitySubscription) => {
    const event = data.conversationActivity;
    if (event.message) {
      append(event.message);
      if (event.message.role === "customer") setAnnouncement(`New message from the customer: ${event.message.content}`);
    } else {
      void view.reload();
    }
  };
  useSubscription(ConversationActivityDocument, { conversationId }, onActivity, {
    onReconnected: () => {
      void view.reload();
      void transcript.refresh();
    },
  });
  const mayConverse = useCan("converse");
  const conversation = view.data?.conversation;
  if (!conversation) {
    return (
      <section className="conversation">
        <Link to="/dashboard/inbox" className="back">
          ← All conversations
        </Link>
        {view.error ? <ErrorNotice error={view.error} /> : <Loading what="the conversation" />}
      </section>
    );
  }
  return (
    <section className="conversation" aria-labelledby="conversation-heading">
      <div className="conversation-main">
        <Link to="/dashboard/inbox" className="back">
          ← All conversations
        </Link>
        <header className="conversation-head">
          <h2 id="conversation-heading">{customerLabel(conversation)}</h2>
          <Badge>{conversation.channel}</Badge> <Badge tone={statusTone(conversation.status)}>{conversation.status}</Badge>
        </header>
        <Handoff conversation={conversation} />
        <Actions conversation={conversation} onChanged={() => void view.reload()} />
        <ErrorNotice error={transcript.error} />
        {transcript.total === null ? (
          <Loading what="messages" />
        ) : (
          <Transcript total={transcript.total} rows={transcript.rows} ensure={transcript.ensure} />
        )}
        <p className="visually-hidden" aria-live="polite">
          {announcement}
        </p>
        {mayConverse && <Composer conversation={conversation} onSent={append} />}
        <Timeline conversation={conversation} />
      </div>
      <CustomerPanel conversation={conversation} />
    </section>
  );
}
