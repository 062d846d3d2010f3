import { createColumnHelper } from "@tanstack/react-table";
import { useState } from "react";
import { LegalHoldsDocument, type LegalHoldsQuery, PlaceLegalHoldDocument, ReleaseLegalHoldDocument } from "../../generated";
import { gql } from "../../lib/api";
import { useAction, useQuery } from "../../lib/query";
import { Badge, ErrorNotice, Status } from "../../ui/feedback";
import { formatDateTime } from "../../ui/format";
import { DataTable } from "../../ui/table";
import { customerOf, emptySubject, type Subject, SubjectFields } from "./subject";

type Hold = LegalHoldsQuery["legalHolds"][number];

/** What a hold covers, in words. */
function covered(hold: Hold): string {
  if (hold.conversationId) return `Conversation ${hold.conversationId}`;
  if (hold.customer?.phone) return `Phone ${hold.customer.phone} (every channel)`;
  return `Customer ${hold.customer?.customerId ?? "?"} on ${hold.customer?.channel ?? "?"}`;
}

function PlaceHold({ onPlaced }: { onPlaced: () => void }) {
  const [subject, setSubject] = useState<Subject>(() => emptySubject("conversation"));
  const [reason, setReason] = useState("");
  const [done, setDone] = useState("");
  const place = useAction(async () => {
    const target =
      subject.kind === "conversation" ? { conversationId: subject.conversationId.trim() } : { customer: customerOf(subject) };
    await gql(PlaceLegalHoldDocument, { ...target, reason });
    setDone("Hold placed.");
    setSubject(emptySubject(subject.kind));
    setReason("");
    onPlaced();
  });
  return (
    <form
      className="stack"
      aria-labelledby="place-hold-heading"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void place.run();
      }}
    >
      <h3 id="place-hold-heading">Place a hold</h3>
      <SubjectFields kinds={["conversation", "channel", "phone"]} value={subject} onChange={setSubject} />
      <label>
        Reason for the hold
        <input
          required
          minLength={3}
          value={reason}
          placeholder="The matter, case or request it serves"
          onChange={(e) => setReason(e.target.value)}
        />
      </label>
      <ErrorNotice error={place.error} />
      {done && <Status>{done}</Status>}
      <div>
        <button type="submit" disabled={place.pending}>
          Place hold
        </button>
      </div>
    </form>
  );
}

/** Releasing one hold: it asks why, as the audit trail keeps it. */
function ReleaseHold({ hold, onDone }: { hold: Hold; onDone: (released: boolean) => void }) {
  const [reason, setReason] = useState("");
  const release = useAction(async () => {
    await gql(ReleaseLegalHoldDocument, { id: hold.id, reason });
    onDone(true);
  });
  return (
    <form
      className="stack notice"
      aria-label={`Release the hold on ${covered(hold)}`}
      onSubmit={(e) => {
        e.preventDefault();
        void release.run();
      }}
    >
      <label>
        Reason for releasing the hold on {covered(hold)}
        <input required minLength={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <ErrorNotice error={release.error} />
      <div className="row">
        <button type="submit" disabled={release.pending}>
          Release hold
        </button>
        <button type="button" className="secondary" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const column = createColumnHelper<Hold>();

/** The tenant's legal holds, in force and released, with the forms to place and release one. */
export function LegalHolds() {
  const holds = useQuery(LegalHoldsDocument, {});
  const [releasing, setReleasing] = useState<Hold | null>(null);
  const [done, setDone] = useState("");
  const reload = () => void holds.reload();
  const columns = [
    column.display({ id: "covers", header: "Covers", cell: (info) => covered(info.row.original) }),
    column.accessor("reason", { header: "Reason" }),
    column.display({
      id: "placed",
      header: "Placed",
      cell: (info) =>
        `${formatDateTime(info.row.original.createdAt)} by ${info.row.original.placedByLabel ?? info.row.original.placedBy}`,
    }),
    column.display({
      id: "state",
      header: "State",
      cell: (info) => {
        const hold = info.row.original;
        return hold.active ? (
          <span className="row">
            <Badge tone="warn">active</Badge>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDone("");
                setReleasing(hold);
              }}
            >
              Release<span className="visually-hidden"> the hold on {covered(hold)}</span>
            </button>
          </span>
        ) : (
          <span>
            <Badge>released</Badge> {formatDateTime(hold.releasedAt)}: {hold.releaseReason}
          </span>
        );
      },
    }),
  ];
  return (
    <section className="panel stack" aria-labelledby="holds-heading">
      <h2 id="holds-heading">Legal holds</h2>
      <p className="hint">A hold keeps what it covers from retention and erasure until it is released.</p>
      <ErrorNotice error={holds.error} />
      <DataTable
        caption="Legal holds"
        columns={columns}
        data={holds.data?.legalHolds ?? []}
        empty={holds.loading ? "Loading…" : "No holds"}
      />
      {releasing && (
        <ReleaseHold
          key={releasing.id}
          hold={releasing}
          onDone={(released) => {
            setReleasing(null);
            if (released) {
              setDone("Hold released.");
              reload();
            }
          }}
        />
      )}
      {done && <Status>{done}</Status>}
      <PlaceHold onPlaced={reload} />
    </section>
  );
}
