import { createColumnHelper } from "@tanstack/react-table";
import { useEffect, useRef, useState } from "react";
import {
  AssignTargetsDocument,
  ConversationActivityDocument,
  type EscalationPriority,
  EscalationQueueDocument,
  type EscalationQueueQuery,
  type EscalationStatus,
  WorkEscalationDocument,
} from "../generated";
import { gql } from "../lib/api";
import { useSubscription } from "../lib/live";
import { useAction, useQuery } from "../lib/query";
import { Link, useSearchParam } from "../lib/router";
import { useCan, useSession } from "../lib/session";
import { Badge, ErrorNotice } from "../ui/feedback";
import { ago, duration, titleCase } from "../ui/format";
import { Select } from "../ui/inputs";
import { Pager } from "../ui/pager";
import { DataTable } from "../ui/table";
import { customerLabel } from "./inbox/labels";

type Escalation = EscalationQueueQuery["escalations"]["items"][number];
const column = createColumnHelper<Escalation>();
const priorityTone: Record<string, string> = { urgent: "danger", high: "warn", normal: "info", low: "neutral" };
const pageSize = 50;

/** Now, every half minute: waiting times grow on screen. */
function useNow() {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

function EscalationActions({
  escalation,
  agents,
  onChanged,
}: {
  escalation: Escalation;
  agents: Array<{ id: string; name: string; role: string }>;
  onChanged: () => void;
}) {
  const session = useSession()!;
  const mayAssignOthers = useCan("configure");
  const work = useAction(async (variables: { assigneeId?: string | null; status?: EscalationStatus }) => {
    await gql(WorkEscalationDocument, { id: escalation.id, ...variables });
    onChanged();
  });
  if (escalation.status === "resolved") return <span className="muted">Resolved</span>;
  const mine = escalation.assignee?.id === session.user.id;
  const label = customerLabel(escalation.conversation);
  return (
    <div className="row">
      {!mine && (mayAssignOthers || !escalation.assignee) && (
        <button type="button" disabled={work.pending} onClick={() => void work.run({ assigneeId: session.user.id })}>
          Take<span className="visually-hidden"> the escalation of {label}</span>
        </button>
      )}
      {mayAssignOthers && (
        <Select
          hiddenLabel
          label={`Assign the escalation of ${label} to`}
          value={escalation.assignee?.id ?? ""}
          disabled={work.pending}
          onChange={(e) => void work.run({ assigneeId: e.target.value || null })}
        >
          <option value="">Nobody</option>
          {agents
            .filter((a) => a.role !== "viewer")
            .map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
        </Select>
      )}
      {(mine || mayAssignOthers) && (
        <button type="button" className="secondary" disabled={work.pending} onClick={() => void work.run({ status: "resolved" })}>
          Resolve<span className="visually-hidden"> the escalation of {label}</span>
        </button>
      )}
      <ErrorNotice error={work.error} />
    </div>
  );
}

export default function EscalationsPage() {
  const mayWork = useCan("converse");
  const [status, setStatus] = useSearchParam("status");
  const [priority, setPriority] = useSearchParam("priority");
  const [mine, setMine] = useSearchParam("mine");
  const [page, setPage] = useState(1);
  const now = useNow();
  const variables = {
    status: (status || null) as EscalationStatus | null,
    priority: (priority || null) as EscalationPriority | null,
    mine: mine === "1" || null,
    page,
    limit: pageSize,
  };
  const queue = useQuery(EscalationQueueDocument, variables);
  // Asked once for the page, not once per row.
  const mayAssign = useCan("configure");
  const targets = useQuery(AssignTargetsDocument, {}, { skip: !mayAssign });
  const reloadSoon = useRef<number | undefined>(undefined);
  useSubscription(
    ConversationActivityDocument,
    {},
    (data) => {
      if (data.conversationActivity.type === "message") return;
      window.clearTimeout(reloadSoon.current);
      reloadSoon.current = window.setTimeout(() => void queue.reload(), 250);
    },
    { onReconnected: () => void queue.reload() },
  );
  const columns = [
    column.accessor((e) => customerLabel(e.conversation), {
      id: "customer",
      header: "Customer",
      cell: (info) => (
        <Link to={`/dashboard/inbox/${info.row.original.conversation.id}`}>
          {info.getValue()} <span className="muted">({info.row.original.conversation.channel})</span>
        </Link>
      ),
    }),
    column.accessor("reason", { header: "Reason", cell: (info) => titleCase(info.getValue()) }),
    column.accessor("priority", {
      header: "Priority",
      sortingFn: (a, b) =>
        ["low", "normal", "high", "urgent"].indexOf(a.original.priority) -
        ["low", "normal", "high", "urgent"].indexOf(b.original.priority),
      cell: (info) => <Badge tone={priorityTone[info.getValue()]}>{info.getValue()}</Badge>,
    }),
    column.accessor((e) => (e.resolvedAt ? new Date(e.resolvedAt) : new Date(now)).getTime() - new Date(e.createdAt).getTime(), {
      id: "waiting",
      header: "Waiting",
      cell: (info) => (
        <span title={ago(info.row.original.createdAt, now)}>
          {duration(info.getValue() / 1000)}
          {info.row.original.resolvedAt ? " (until resolved)" : ""}
        </span>
      ),
    }),
    column.accessor((e) => e.team?.name ?? "", { id: "team", header: "Team", cell: (info) => info.getValue() || "Any" }),
    column.accessor((e) => e.assignee?.name ?? "", {
      id: "assignee",
      header: "Assignee",
      cell: (info) => info.getValue() || "—",
    }),
    column.accessor("status", { header: "Status", cell: (info) => <Badge>{info.getValue()}</Badge> }),
    ...(mayWork
      ? [
          column.display({
            id: "actions",
            header: "Actions",
            cell: (info) => (
              <EscalationActions
                escalation={info.row.original}
                agents={targets.data?.agents.items ?? []}
                onChanged={() => void queue.reload()}
              />
            ),
          }),
        ]
      : []),
  ];
  const data = queue.data?.escalations;
  return (
    <section aria-labelledby="escalations-heading">
      <h1 id="escalations-heading">Escalations</h1>
      <div className="row filters-row">
        <Select
          className="field inline"
          label="Status"
          value={status}
          onChange={(e) => {
            setPage(1);
            setStatus(e.target.value);
          }}
        >
          <option value="">Any</option>
          <option value="open">Waiting (nobody has it)</option>
          <option value="assigned">Assigned</option>
          <option value="resolved">Resolved</option>
        </Select>
        <Select
          className="field inline"
          label="Priority"
          value={priority}
          onChange={(e) => {
            setPage(1);
            setPriority(e.target.value);
          }}
        >
          <option value="">Any</option>
          {["urgent", "high", "normal", "low"].map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </Select>
        {mayWork && (
          <label className="check">
            <input
              type="checkbox"
              checked={mine === "1"}
              onChange={(e) => {
                setPage(1);
                setMine(e.target.checked ? "1" : "");
              }}
            />
            Only mine
          </label>
        )}
      </div>
      <ErrorNotice error={queue.error} />
      <DataTable
        caption="Escalations, newest first"
        columns={columns}
        data={data?.items ?? []}
        empty={queue.loading ? "Loading…" : "No escalations"}
      />
      {data && <Pager page={data.page} limit={data.limit} total={data.total} onPage={setPage} />}
    </section>
  );
}
