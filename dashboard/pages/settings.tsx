import { createColumnHelper } from "@tanstack/react-table";
import { useEffect, useState } from "react";
import {
  ApiKeysDocument,
  type ApiKeysQuery,
  CreateApiKeyDocument,
  CreateWidgetTokenDocument,
  RevokeApiKeyDocument,
  type Role,
  SaveChannelDocument,
  SettingsPageDocument,
  type SettingsPageQuery,
  UpdateTenantDocument,
} from "../generated";
import { gql } from "../lib/api";
import { useAction, useQuery } from "../lib/query";
import { useCan } from "../lib/session";
import { Badge, ErrorNotice, Status } from "../ui/feedback";
import { formatDateTime } from "../ui/format";
import { Select } from "../ui/inputs";
import { DataTable } from "../ui/table";
import { AiDisclosure } from "./settings/disclosure";
import { BusinessHours } from "./settings/hours";
import { IdentityProvider, RequireTwoFactor } from "./settings/sign-in";

type Tenant = SettingsPageQuery["tenant"];
type Channel = SettingsPageQuery["channels"][number];
type ApiKey = ApiKeysQuery["apiKeys"][number];

interface TenantSettings {
  persona?: string;
  piiRedaction?: boolean;
  lowConfidenceEscalateAfter?: number;
  requireMfa?: boolean;
}

function Profile({ tenant, onSaved }: { tenant: Tenant; onSaved: () => void }) {
  const mayConfigure = useCan("configure");
  const settings = tenant.settings as TenantSettings;
  const [name, setName] = useState(tenant.name);
  const [persona, setPersona] = useState(settings.persona ?? "");
  const [pii, setPii] = useState(settings.piiRedaction ?? true);
  const [after, setAfter] = useState(settings.lowConfidenceEscalateAfter ?? 3);
  const [max, setMax] = useState(tenant.rateLimit.max);
  const [windowS, setWindowS] = useState(tenant.rateLimit.windowS);
  const [done, setDone] = useState("");
  const save = useAction(async () => {
    await gql(UpdateTenantDocument, {
      name,
      persona,
      piiRedaction: pii,
      lowConfidenceEscalateAfter: after,
      rateLimitMax: max,
      rateLimitWindowS: windowS,
    });
    setDone("Saved.");
    onSaved();
  });
  return (
    <form
      className="panel stack"
      aria-labelledby="profile-heading"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void save.run();
      }}
    >
      <h2 id="profile-heading">Bank and assistant</h2>
      <fieldset className="plain-fieldset stack" disabled={!mayConfigure}>
        <label>
          Bank name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Assistant persona and instructions
          <textarea
            rows={4}
            maxLength={2000}
            value={persona}
            onChange={(e) => setPersona(e.target.value)}
            aria-describedby="persona-hint"
          />
          <span id="persona-hint" className="hint">
            How the assistant speaks for the bank (up to 2,000 characters). The safety rules always prevail.
          </span>
        </label>
        <label className="check">
          <input type="checkbox" checked={pii} onChange={(e) => setPii(e.target.checked)} /> Mask card and account numbers,
          e-mails and phones before messages leave for an external model
        </label>
        <label>
          Hand to a person after this many answers the AI could not ground
          <input
            type="number"
            min={1}
            max={20}
            className="narrow"
            value={after}
            onChange={(e) => setAfter(Number(e.target.value))}
          />
        </label>
        <div className="row">
          <label>
            Rate limit: requests
            <input type="number" min={1} className="narrow" value={max} onChange={(e) => setMax(Number(e.target.value))} />
          </label>
          <label>
            per seconds
            <input
              type="number"
              min={1}
              className="narrow"
              value={windowS}
              onChange={(e) => setWindowS(Number(e.target.value))}
            />
          </label>
        </div>
      </fieldset>
      <ErrorNotice error={save.error} />
      {done && <Status>{done}</Status>}
      {mayConfigure && (
        <div>
          <button type="submit" disabled={save.pending}>
            Save settings
          </button>
        </div>
      )}
    </form>
  );
}

const keyColumn = createColumnHelper<ApiKey>();

function ApiKeys() {
  const keys = useQuery(ApiKeysDocument, {});
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("admin");
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const create = useAction(async () => {
    const { createApiKey } = await gql(CreateApiKeyDocument, { name, role });
    setCreated({ name, key: createApiKey.key });
    setName("");
    void keys.reload();
  });
  const revoke = useAction(async (id: string) => {
    await gql(RevokeApiKeyDocument, { id });
    void keys.reload();
  });
  const columns = [
    keyColumn.accessor("name", { header: "Name" }),
    keyColumn.accessor("prefix", { header: "Starts with", cell: (info) => <code>{info.getValue()}…</code> }),
    keyColumn.accessor("role", { header: "Role" }),
    keyColumn.accessor("createdAt", { header: "Created", cell: (info) => formatDateTime(info.getValue()) }),
    keyColumn.accessor("lastUsedAt", { header: "Last used", cell: (info) => formatDateTime(info.getValue()) }),
    keyColumn.display({
      id: "state",
      header: "State",
      cell: (info) =>
        info.row.original.revokedAt ? (
          <Badge>revoked</Badge>
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={revoke.pending}
            onClick={() => void revoke.run(info.row.original.id)}
          >
            Revoke<span className="visually-hidden"> {info.row.original.name}</span>
          </button>
        ),
    }),
  ];
  return (
    <section className="panel" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setCreated(null);
          void create.run();
        }}
      >
        <label className="grow">
          Key name
          <input required value={name} placeholder="e.g. CRM integration" onChange={(e) => setName(e.target.value)} />
        </label>
        <Select label="Key role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {(["admin", "agent", "viewer", "owner"] as Role[]).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </Select>
        <button type="submit" disabled={create.pending}>
          Create key
        </button>
      </form>
      {created && (
        <div className="notice ok" role="status">
          <p>The key “{created.name}”, shown this once: copy it now, it is stored only as a hash.</p>
          <label>
            New API key
            <input className="secret" readOnly value={created.key} onFocus={(e) => e.target.select()} />
          </label>
        </div>
      )}
      <ErrorNotice error={create.error ?? revoke.error ?? keys.error} />
      <DataTable
        caption="API keys"
        columns={columns}
        data={keys.data?.apiKeys ?? []}
        empty={keys.loading ? "Loading…" : "No keys"}
      />
    </section>
  );
}

interface WidgetSettings {
  allowed_origins?: string[];
  title?: string;
  greeting?: string;
  primary_color?: string;
  position?: string;
}

/** The widget on this very page, as a bank's site would embed it (its origin must be allowed for it to answer). */
function usePreview(token: string | null) {
  useEffect(() => {
    if (!token) return;
    const script = document.createElement("script");
    script.src = "/widget.js";
    script.dataset.key = token;
    script.dataset.position = "bottom-right";
    document.body.append(script);
    return () => {
      script.remove();
      document.querySelector("parley-chat")?.remove();
    };
  }, [token]);
}

function Widget({ channel, onSaved }: { channel: Channel | null; onSaved: () => void }) {
  const mayConfigure = useCan("configure");
  const settings = (channel?.settings ?? {}) as WidgetSettings;
  const [origins, setOrigins] = useState((settings.allowed_origins ?? []).join("\n"));
  const [title, setTitle] = useState(settings.title ?? "");
  const [greeting, setGreeting] = useState(settings.greeting ?? "");
  const [colour, setColour] = useState(settings.primary_color ?? "#1f4fd1");
  const [snippet, setSnippet] = useState<{ token: string; embedSnippet: string } | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [done, setDone] = useState("");
  usePreview(preview);
  const here = window.location.origin;
  const allowed = origins.split(/\s+/).filter(Boolean);
  const save = useAction(async (extraOrigin?: string) => {
    await gql(SaveChannelDocument, {
      ref: channel?.id ?? "widget",
      settings: {
        allowed_origins: extraOrigin ? [...allowed, extraOrigin] : allowed,
        title: title || null,
        greeting: greeting || null,
        primary_color: colour,
      },
    });
    if (extraOrigin) setOrigins([...allowed, extraOrigin].join("\n"));
    setDone("Widget saved.");
    onSaved();
  });
  const token = useAction(async () =>
    setSnippet((await gql(CreateWidgetTokenDocument, { ref: channel?.id ?? null })).createWidgetToken),
  );
  return (
    <section className="panel stack" aria-labelledby="widget-heading">
      <h2 id="widget-heading">Web widget</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          setDone("");
          void save.run();
        }}
      >
        <fieldset className="plain-fieldset stack" disabled={!mayConfigure}>
          <label>
            Sites allowed to show it (one origin a line, e.g. https://www.your-bank.com)
            <textarea rows={3} value={origins} onChange={(e) => setOrigins(e.target.value)} />
          </label>
          <div className="row">
            <label className="grow">
              Title
              <input value={title} placeholder="Chat with us" onChange={(e) => setTitle(e.target.value)} />
            </label>
            <label>
              Colour
              <input type="color" value={colour} onChange={(e) => setColour(e.target.value)} />
            </label>
          </div>
          <label>
            Greeting
            <input value={greeting} onChange={(e) => setGreeting(e.target.value)} />
          </label>
        </fieldset>
        <ErrorNotice error={save.error ?? token.error} />
        {done && <Status>{done}</Status>}
        {mayConfigure && (
          <div className="row">
            <button type="submit" disabled={save.pending}>
              {channel ? "Save widget" : "Create the widget"}
            </button>
            {channel && (
              <button type="button" className="secondary" disabled={token.pending} onClick={() => void token.run()}>
                Make a token and embed snippet
              </button>
            )}
          </div>
        )}
      </form>
      {snippet && (
        <>
          <label>
            Embed snippet: paste it into your pages
            <textarea readOnly rows={3} value={snippet.embedSnippet} onFocus={(e) => e.target.select()} />
          </label>
          {allowed.includes(here) ? (
            <button type="button" className="secondary" onClick={() => setPreview(preview ? null : snippet.token)}>
              {preview ? "Hide the live preview" : "Show a live preview on this page"}
            </button>
          ) : (
            <p className="hint">
              To preview the widget here, allow this dashboard's own site ({here}).{" "}
              {mayConfigure && (
                <button type="button" className="link" onClick={() => void save.run(here)}>
                  Allow {here}
                </button>
              )}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** How the bank's team signs in: two-factor for everyone, the bank's own identity provider. */
function SignIn({ tenant, onSaved }: { tenant: Tenant; onSaved: () => void }) {
  return (
    <section className="panel stack" aria-labelledby="sign-in-heading">
      <h2 id="sign-in-heading">Sign-in</h2>
      <RequireTwoFactor required={(tenant.settings as TenantSettings).requireMfa === true} onSaved={onSaved} />
      <IdentityProvider tenantId={tenant.id} />
    </section>
  );
}

export default function SettingsPage() {
  const page = useQuery(SettingsPageDocument, {});
  const mayManageKeys = useCan("manageKeys");
  const mayConfigure = useCan("configure");
  const reload = () => void page.reload();
  const widget = page.data?.channels.find((c) => c.type === "widget") ?? null;
  return (
    <section aria-labelledby="settings-heading">
      <h1 id="settings-heading">Settings</h1>
      <ErrorNotice error={page.error} />
      {page.data && (
        <>
          <Profile key={page.data.tenant.name} tenant={page.data.tenant} onSaved={reload} />
          <AiDisclosure
            settings={page.data.tenant.settings as object}
            inForce={page.data.tenant.aiDisclosure}
            disabled={!mayConfigure}
            onSaved={reload}
          />
          <BusinessHours hours={page.data.tenant.businessHours} disabled={!mayConfigure} onSaved={reload} />
          {mayConfigure && <SignIn tenant={page.data.tenant} onSaved={reload} />}
          {mayManageKeys && <ApiKeys />}
          <Widget key={widget?.id ?? "none"} channel={widget} onSaved={reload} />
        </>
      )}
    </section>
  );
}
