import { type FormEvent, useId, useState } from "react";
import {
  type ChannelRowFragment,
  ChannelsPageDocument,
  type ChannelsPageQuery,
  DeleteChannelDocument,
  DeleteVoiceDocument,
  SaveChannelDocument,
  SaveVoiceDocument,
  SendTestMessageDocument,
} from "../generated";
import { gql } from "../lib/api";
import { useAction, useQuery } from "../lib/query";
import { Link } from "../lib/router";
import { useCan } from "../lib/session";
import { Badge, ErrorNotice, Status } from "../ui/feedback";
import { Select } from "../ui/inputs";

interface FieldDef {
  name: string;
  label: string;
  secret?: boolean;
}

// The credentials each provider needs (README, Channels). Secrets are write-only: the API shows them masked, and a
// field left empty keeps the stored value.
const providers: Record<string, { title: string; fields: FieldDef[]; sends: boolean }> = {
  chatapp: {
    title: "WhatsApp (chat app)",
    sends: true,
    fields: [
      { name: "phone_number_id", label: "Phone number id" },
      { name: "access_token", label: "Access token", secret: true },
      { name: "verify_token", label: "Verify token (you choose it)", secret: true },
      { name: "app_secret", label: "App secret", secret: true },
    ],
  },
  messenger: {
    title: "Messenger (Facebook Page)",
    sends: true,
    fields: [
      { name: "page_id", label: "Page id" },
      { name: "access_token", label: "Page access token", secret: true },
      { name: "verify_token", label: "Verify token (you choose it)", secret: true },
      { name: "app_secret", label: "App secret", secret: true },
    ],
  },
  instagram: {
    title: "Instagram",
    sends: true,
    fields: [
      { name: "ig_account_id", label: "Instagram account id" },
      { name: "access_token", label: "Page access token", secret: true },
      { name: "verify_token", label: "Verify token (you choose it)", secret: true },
      { name: "app_secret", label: "App secret", secret: true },
    ],
  },
  sms: {
    title: "SMS (Twilio)",
    sends: true,
    fields: [
      { name: "account_sid", label: "Account SID" },
      { name: "auth_token", label: "Auth token", secret: true },
      { name: "phone_number", label: "Phone number (E.164)" },
    ],
  },
  "sms-africastalking": {
    title: "SMS (Africa's Talking)",
    sends: true,
    fields: [
      { name: "username", label: "Username" },
      { name: "api_key", label: "API key", secret: true },
      { name: "shortcode", label: "Shortcode" },
      { name: "token", label: "URL token (16–128 URL-safe characters)", secret: true },
    ],
  },
  ussd: {
    title: "USSD (Africa's Talking)",
    sends: false,
    fields: [
      { name: "service_code", label: "Service code" },
      { name: "token", label: "URL token (16–128 URL-safe characters)", secret: true },
    ],
  },
  voice: {
    title: "Voice (Twilio)",
    sends: false,
    fields: [
      { name: "account_sid", label: "Account SID" },
      { name: "auth_token", label: "Auth token", secret: true },
      { name: "phone_number", label: "Phone number (E.164)" },
    ],
  },
  botmsg: {
    title: "Telegram bot",
    sends: true,
    fields: [
      { name: "bot_token", label: "Bot token", secret: true },
      { name: "secret_token", label: "Secret token (you choose it)", secret: true },
    ],
  },
  microblog: {
    title: "X direct messages",
    sends: true,
    fields: [
      { name: "user_id", label: "Account user id" },
      { name: "consumer_secret", label: "Consumer secret", secret: true },
      { name: "access_token", label: "User access token", secret: true },
    ],
  },
  teamchat: {
    title: "Slack",
    sends: true,
    fields: [
      { name: "team_id", label: "Team id (T…)" },
      { name: "bot_token", label: "Bot token (xoxb-…)", secret: true },
      { name: "signing_secret", label: "Signing secret", secret: true },
    ],
  },
};

type Channel = ChannelRowFragment;
const kindOf = (c: { type: string; settings: unknown }) =>
  c.type === "sms" && (c.settings as { provider?: string }).provider === "africastalking" ? "sms-africastalking" : c.type;

function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input id={id} className="grow" readOnly value={value} onFocus={(e) => e.target.select()} />
        <button
          type="button"
          className="secondary"
          onClick={() =>
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
          <span className="visually-hidden"> {label}</span>
        </button>
      </div>
    </div>
  );
}

function TestMessage({ channel }: { channel: Channel }) {
  const [to, setTo] = useState("");
  const [done, setDone] = useState("");
  const send = useAction(async () => {
    await gql(SendTestMessageDocument, { ref: channel.id, to });
    setDone(`Sent to ${to}.`);
  });
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void send.run();
      }}
    >
      <label className="grow">
        Send a test message to
        <input
          required
          value={to}
          placeholder="The provider's address: a phone number without +, a chat id…"
          onChange={(e) => setTo(e.target.value)}
        />
      </label>
      <button type="submit" disabled={send.pending}>
        Send test
      </button>
      <ErrorNotice error={send.error} />
      {done && <Status>{done}</Status>}
    </form>
  );
}

function ChannelForm({ kind, channel, onSaved }: { kind: string; channel: Channel | null; onSaved: () => void }) {
  const definition = providers[kind]!;
  const stored = (channel?.credentials ?? {}) as Record<string, string>;
  const settings = (channel?.settings ?? {}) as { greeting?: string; maxReplyChars?: number };
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(definition.fields.map((f) => [f.name, f.secret ? "" : (stored[f.name] ?? "")])),
  );
  const [name, setName] = useState(channel?.name ?? definition.title);
  const [greeting, setGreeting] = useState(settings.greeting ?? "");
  const [saved, setSaved] = useState("");
  const mayConfigure = useCan("configure");
  const save = useAction(async (enabled?: boolean) => {
    const credentials = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ""));
    const type = kind === "sms-africastalking" ? "sms" : kind;
    const result = await gql(SaveChannelDocument, {
      ref: channel?.id ?? type,
      name,
      enabled,
      credentials,
      settings: {
        greeting: greeting || null,
        ...(type === "sms" ? { provider: kind === "sms-africastalking" ? "africastalking" : "twilio" } : {}),
      },
    });
    setSaved(result.saveChannel.created ? "Channel created." : "Saved.");
    setValues((v) =>
      Object.fromEntries(
        Object.entries(v).map(([k, value]) => [k, definition.fields.find((f) => f.name === k)?.secret ? "" : value]),
      ),
    );
    onSaved();
  });
  const remove = useAction(async () => {
    await gql(DeleteChannelDocument, { id: channel!.id });
    onSaved();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved("");
    void save.run();
  };
  return (
    <form className="stack" onSubmit={submit}>
      <label>
        Name
        <input value={name} disabled={!mayConfigure} onChange={(e) => setName(e.target.value)} />
      </label>
      {definition.fields.map((field) => (
        <label key={field.name}>
          {field.label}
          <input
            type={field.secret ? "password" : "text"}
            autoComplete="off"
            disabled={!mayConfigure}
            required={!channel && !field.secret}
            value={values[field.name] ?? ""}
            placeholder={field.secret && stored[field.name] ? `Saved (${stored[field.name]}): type to replace` : ""}
            onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
          />
        </label>
      ))}
      <label>
        Greeting (USSD menu, voice call; optional)
        <input value={greeting} disabled={!mayConfigure} onChange={(e) => setGreeting(e.target.value)} />
      </label>
      <ErrorNotice error={save.error ?? remove.error} />
      {saved && <Status>{saved}</Status>}
      {mayConfigure && (
        <div className="row">
          <button type="submit" disabled={save.pending}>
            {channel ? "Save changes" : "Connect channel"}
          </button>
          {channel && (
            <button type="button" className="secondary" disabled={save.pending} onClick={() => void save.run(!channel.enabled)}>
              {channel.enabled ? "Disable" : "Enable"}
            </button>
          )}
          {channel && (
            <button type="button" className="secondary" disabled={remove.pending} onClick={() => void remove.run()}>
              Remove
            </button>
          )}
        </div>
      )}
    </form>
  );
}

function ChannelCard({ channel, onSaved }: { channel: Channel; onSaved: () => void }) {
  const mayConfigure = useCan("configure");
  const kind = kindOf(channel);
  const definition = providers[kind];
  const tone = channel.verification.status === "verified" ? "ok" : channel.verification.status === "pending" ? "warn" : "neutral";
  return (
    <section className="panel" aria-label={channel.name}>
      <h2>
        {channel.name} <Badge>{channel.type}</Badge>{" "}
        <Badge tone={channel.enabled ? "ok" : "neutral"}>{channel.enabled ? "enabled" : "disabled"}</Badge>{" "}
        <Badge tone={tone}>{channel.verification.status.replace("_", " ")}</Badge>
      </h2>
      {channel.verification.status !== "not_required" && <p className="hint">{channel.verification.instructions}</p>}
      {channel.webhookUrl && <CopyField label="Webhook URL to paste in the provider's console" value={channel.webhookUrl} />}
      {channel.type === "widget" ? (
        <p>
          The web widget is set up under <Link to="/dashboard/settings">Settings</Link>: its allowed sites, token and embed
          snippet.
        </p>
      ) : definition ? (
        <details>
          <summary>Credentials and settings</summary>
          <ChannelForm kind={kind} channel={channel} onSaved={onSaved} />
        </details>
      ) : null}
      {mayConfigure && channel.enabled && definition?.sends && <TestMessage channel={channel} />}
    </section>
  );
}

function Voices({ voices, onChanged }: { voices: ChannelsPageQuery["voices"]; onChanged: () => void }) {
  const mayConfigure = useCan("configure");
  const [name, setName] = useState("Polly.Amy");
  const [language, setLanguage] = useState("en-GB");
  const [rate, setRate] = useState(1);
  const [greeting, setGreeting] = useState("");
  const act = useAction(async (work: () => Promise<unknown>) => {
    await work();
    onChanged();
  });
  return (
    <section className="panel" aria-labelledby="voices-heading">
      <h2 id="voices-heading">Voices</h2>
      <p className="hint">The voice channel speaks with the selected voice; its greeting opens each call.</p>
      {voices.length === 0 ? (
        <p className="muted">No voice yet.</p>
      ) : (
        <ul className="plain">
          {voices.map((voice) => (
            <li key={voice.id} className="row">
              <span className="grow">
                {voice.name}{" "}
                <span className="muted">
                  ({voice.language}, rate {voice.speakingRate})
                </span>{" "}
                {voice.selected && <Badge tone="ok">selected</Badge>}
                {voice.greeting && <span className="muted"> “{voice.greeting}”</span>}
              </span>
              {mayConfigure && !voice.selected && (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => void act.run(() => gql(SaveVoiceDocument, { id: voice.id, selected: true }))}
                >
                  Select<span className="visually-hidden"> {voice.name}</span>
                </button>
              )}
              {mayConfigure && (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => void act.run(() => gql(DeleteVoiceDocument, { id: voice.id }))}
                >
                  Delete<span className="visually-hidden"> {voice.name}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {mayConfigure && (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            void act.run(() => gql(SaveVoiceDocument, { name, language, speakingRate: rate, greeting: greeting || null }));
          }}
        >
          <label>
            Voice name
            <input required value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Language
            <input required value={language} onChange={(e) => setLanguage(e.target.value)} />
          </label>
          <label>
            Speaking rate
            <input type="number" step={0.1} min={0.5} max={2} value={rate} onChange={(e) => setRate(Number(e.target.value))} />
          </label>
          <label className="grow">
            Greeting
            <input value={greeting} onChange={(e) => setGreeting(e.target.value)} />
          </label>
          <button type="submit" disabled={act.pending}>
            Add voice
          </button>
        </form>
      )}
      <ErrorNotice error={act.error} />
    </section>
  );
}

export default function ChannelsPage() {
  const mayConfigure = useCan("configure");
  const page = useQuery(ChannelsPageDocument, {});
  const [adding, setAdding] = useState("");
  return (
    <section aria-labelledby="channels-heading">
      <h1 id="channels-heading">Channels</h1>
      <ErrorNotice error={page.error} />
      {mayConfigure && (
        <section className="panel" aria-labelledby="add-channel-heading">
          <h2 id="add-channel-heading">Connect a channel</h2>
          <Select label="Provider" value={adding} onChange={(e) => setAdding(e.target.value)}>
            <option value="">Choose…</option>
            {Object.entries(providers).map(([kind, p]) => (
              <option key={kind} value={kind}>
                {p.title}
              </option>
            ))}
          </Select>
          {adding && (
            <ChannelForm
              key={adding}
              kind={adding}
              channel={null}
              onSaved={() => {
                setAdding("");
                void page.reload();
              }}
            />
          )}
        </section>
      )}
      {(page.data?.channels ?? []).map((channel) => (
        <ChannelCard key={channel.id} channel={channel} onSaved={() => void page.reload()} />
      ))}
      {page.data && page.data.channels.length === 0 && <p className="muted">No channel is connected yet.</p>}
      {page.data && <Voices voices={page.data.voices} onChanged={() => void page.reload()} />}
    </section>
  );
}
