import { useState } from "react";
import { UpdateDisclosureDocument } from "../../generated";
import { gql } from "../../lib/api";
import { useAction } from "../../lib/query";
import { ErrorNotice, Status } from "../../ui/feedback";

interface DisclosureSettings {
  aiDisclosure?: string;
  aiDisclosureEnabled?: boolean;
  assistantName?: string;
}

/** The line every conversation starts with, telling the customer they talk to an AI. */
export function AiDisclosure({
  settings,
  inForce,
  disabled,
  onSaved,
}: {
  settings: DisclosureSettings;
  inForce: string | null;
  disabled: boolean;
  onSaved: () => void;
}) {
  const [enabled, setEnabled] = useState(settings.aiDisclosureEnabled !== false);
  const [assistantName, setAssistantName] = useState(settings.assistantName ?? "");
  const [line, setLine] = useState(settings.aiDisclosure ?? "");
  const [done, setDone] = useState("");
  // Empty fields go back to the defaults (null), as the API resets them.
  const save = useAction(async () => {
    await gql(UpdateDisclosureDocument, {
      aiDisclosureEnabled: enabled,
      aiDisclosure: line.trim() || null,
      assistantName: assistantName.trim() || null,
    });
    setDone("Disclosure saved.");
    onSaved();
  });
  return (
    <form
      className="panel stack"
      aria-labelledby="disclosure-heading"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void save.run();
      }}
    >
      <h2 id="disclosure-heading">AI disclosure</h2>
      <fieldset className="plain-fieldset stack" disabled={disabled}>
        <label className="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Tell customers at the start
          of every conversation that they are talking to an AI
        </label>
        <label>
          Assistant's name (empty: the bank's name)
          <input value={assistantName} maxLength={80} onChange={(e) => setAssistantName(e.target.value)} />
        </label>
        <label>
          Your own wording (empty: the default line)
          <textarea rows={2} maxLength={500} value={line} onChange={(e) => setLine(e.target.value)} />
        </label>
      </fieldset>
      <p>
        <span className="muted">Customers are told now: </span>
        {inForce ? <q>{inForce}</q> : "nothing (the disclosure is off)"}
      </p>
      <ErrorNotice error={save.error} />
      {done && <Status>{done}</Status>}
      {!disabled && (
        <div>
          <button type="submit" disabled={save.pending}>
            Save disclosure
          </button>
        </div>
      )}
    </form>
  );
}
