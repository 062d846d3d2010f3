import type { CustomerIdentityInput } from "../../generated";
import { Select } from "../../ui/inputs";
import { channels } from "../inbox/labels";

/** What a hold or an erasure is about: one conversation, a customer's id on one channel, or a phone number. */
export type SubjectKind = "conversation" | "channel" | "phone";

export interface Subject {
  kind: SubjectKind;
  conversationId: string;
  channel: string;
  customerId: string;
  phone: string;
}

export const emptySubject = (kind: SubjectKind): Subject => ({
  kind,
  conversationId: "",
  channel: "sms",
  customerId: "",
  phone: "",
});

const kindLabels: Record<SubjectKind, string> = {
  conversation: "A conversation",
  channel: "A customer on one channel",
  phone: "A phone number, on every channel",
};

/** The customer as the API names them (the conversation kind names none). */
export function customerOf(subject: Subject): CustomerIdentityInput {
  return subject.kind === "phone"
    ? { phone: subject.phone.trim() }
    : { channel: subject.channel, customerId: subject.customerId.trim() };
}

/** The subject in words, for a confirmation or a table. */
export function describeSubject(subject: Subject): string {
  if (subject.kind === "conversation") return `conversation ${subject.conversationId.trim()}`;
  if (subject.kind === "phone") return `the phone number ${subject.phone.trim()}, on every channel`;
  return `customer ${subject.customerId.trim()} on ${subject.channel}`;
}

/** The fields that name a subject of one of `kinds`, the kind chosen first. */
export function SubjectFields({
  kinds,
  value,
  onChange,
}: {
  kinds: SubjectKind[];
  value: Subject;
  onChange: (subject: Subject) => void;
}) {
  const set = (patch: Partial<Subject>) => onChange({ ...value, ...patch });
  return (
    <div className="row">
      <Select label="Who or what" value={value.kind} onChange={(e) => set({ kind: e.target.value as SubjectKind })}>
        {kinds.map((kind) => (
          <option key={kind} value={kind}>
            {kindLabels[kind]}
          </option>
        ))}
      </Select>
      {value.kind === "conversation" && (
        <label className="grow">
          Conversation id
          <input
            required
            value={value.conversationId}
            placeholder="conv_…"
            onChange={(e) => set({ conversationId: e.target.value })}
          />
        </label>
      )}
      {value.kind === "channel" && (
        <>
          <Select label="Channel" value={value.channel} onChange={(e) => set({ channel: e.target.value })}>
            {channels.map((channel) => (
              <option key={channel} value={channel}>
                {channel}
              </option>
            ))}
          </Select>
          <label className="grow">
            Customer id on that channel
            <input required value={value.customerId} onChange={(e) => set({ customerId: e.target.value })} />
          </label>
        </>
      )}
      {value.kind === "phone" && (
        <label className="grow">
          Phone number
          <input
            required
            type="tel"
            value={value.phone}
            placeholder="+41791234567"
            onChange={(e) => set({ phone: e.target.value })}
          />
        </label>
      )}
    </div>
  );
}
