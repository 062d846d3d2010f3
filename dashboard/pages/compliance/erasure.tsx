import { useState } from "react";
import { EraseCustomerDocument, type EraseCustomerMutation } from "../../generated";
import { gql } from "../../lib/api";
import { useAction } from "../../lib/query";
import { ErrorNotice } from "../../ui/feedback";
import { customerOf, describeSubject, emptySubject, type Subject, SubjectFields } from "./subject";

type Erasure = EraseCustomerMutation["eraseCustomer"];

const countLabels: Array<[keyof Omit<Erasure["erased"], "__typename">, string]> = [
  ["conversations", "Conversations"],
  ["messages", "Messages"],
  ["feedback", "Ratings of AI replies"],
  ["surveys", "Satisfaction scores"],
  ["escalations", "Hand-offs"],
  ["timelineEvents", "Timeline events and notes"],
  ["webhookEvents", "Event notifications"],
  ["jobs", "Records of received messages"],
];

function ErasureResult({ who, erasure }: { who: string; erasure: Erasure }) {
  return (
    <div className="stack">
      <p className="notice ok" role="status">
        Erased the data of {who}.
      </p>
      <ul className="cards" aria-label="Erased">
        {countLabels.map(([key, label]) => (
          <li key={key} className="card">
            <span className="value">{erasure.erased[key]}</span> {label}
          </li>
        ))}
      </ul>
      {erasure.heldBack.length === 0 ? (
        <p>No legal hold kept anything back.</p>
      ) : (
        <>
          <p>Kept because a legal hold covers them:</p>
          <ul aria-label="Kept by legal holds">
            {erasure.heldBack.map((held) => (
              <li key={held.conversationId}>
                Conversation {held.conversationId} (hold: {held.reason})
              </li>
            ))}
          </ul>
        </>
      )}
      <p className="hint">The audit trail names the customer only as {erasure.subject}.</p>
    </div>
  );
}

/** A data-subject request: the customer named, the erasure confirmed, then what went and what holds kept. */
export function Erasure() {
  const [subject, setSubject] = useState<Subject>(() => emptySubject("channel"));
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ who: string; erasure: Erasure } | null>(null);
  const erase = useAction(async () => {
    const { eraseCustomer } = await gql(EraseCustomerDocument, { customer: customerOf(subject) });
    setResult({ who: describeSubject(subject), erasure: eraseCustomer });
    setSubject(emptySubject(subject.kind));
  });
  return (
    <section className="panel stack" aria-labelledby="erasure-heading">
      <h2 id="erasure-heading">Erase a customer's data</h2>
      <p className="hint">
        For a data-subject request: every conversation of the customer, with its messages, ratings, hand-offs and the
        notifications that carried them, is deleted for good. What a legal hold covers is kept and listed.
      </p>
      <form
        className="stack"
        aria-label="Customer to erase"
        onSubmit={(e) => {
          e.preventDefault();
          setResult(null);
          erase.clearError();
          setConfirming(true);
        }}
      >
        <fieldset className="plain-fieldset stack" disabled={confirming}>
          <SubjectFields kinds={["channel", "phone"]} value={subject} onChange={setSubject} />
        </fieldset>
        {!confirming && (
          <div>
            <button type="submit">Erase…</button>
          </div>
        )}
      </form>
      {confirming && (
        <div className="notice error stack" role="alert">
          <p>Erase every conversation of {describeSubject(subject)}? This cannot be undone.</p>
          <div className="row">
            <button
              type="button"
              className="danger"
              disabled={erase.pending}
              onClick={() => void erase.run().then(() => setConfirming(false))}
            >
              Yes, erase for good
            </button>
            <button type="button" className="secondary" disabled={erase.pending} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ErrorNotice error={erase.error} />
      {result && <ErasureResult who={result.who} erasure={result.erasure} />}
    </section>
  );
}
