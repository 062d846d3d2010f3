import { useState } from "react";
import {
  DeleteOidcSettingsDocument,
  type JitRole,
  OidcSettingsDocument,
  type OidcSettingsQuery,
  RequireMfaDocument,
  SaveOidcSettingsDocument,
} from "../../generated";
import { gql } from "../../lib/api";
import { useAction, useQuery } from "../../lib/query";
import { ErrorNotice, Loading, Status } from "../../ui/feedback";
import { Select } from "../../ui/inputs";

type OidcConfig = NonNullable<OidcSettingsQuery["oidcConfig"]>;

/** Every dashboard user must sign in with a code of their authenticator app (the tenant's requireMfa). */
export function RequireTwoFactor({ required, onSaved }: { required: boolean; onSaved: () => void }) {
  const [checked, setChecked] = useState(required);
  const [done, setDone] = useState("");
  const save = useAction(async (requireMfa: boolean) => {
    setChecked(requireMfa);
    await gql(RequireMfaDocument, { requireMfa }).catch((error: unknown) => {
      setChecked(!requireMfa);
      throw error;
    });
    setDone(requireMfa ? "Two-factor sign-in is now required." : "Two-factor sign-in is now optional.");
    onSaved();
  });
  return (
    <div className="stack">
      <h3>Two-factor sign-in</h3>
      <label className="check">
        <input
          type="checkbox"
          checked={checked}
          disabled={save.pending}
          onChange={(e) => {
            setDone("");
            void save.run(e.target.checked);
          }}
        />{" "}
        Require two-factor sign-in for everyone (users without it, you included, may only set it up on their account page)
      </label>
      <ErrorNotice error={save.error} />
      {done && <Status>{done}</Status>}
    </div>
  );
}

const lines = (text: string) => text.split(/[\s,]+/).filter(Boolean);

function OidcForm({ config, onSaved }: { config: OidcConfig | null; onSaved: () => void }) {
  const [issuer, setIssuer] = useState(config?.issuer ?? "");
  const [clientId, setClientId] = useState(config?.clientId ?? "");
  const [clientSecret, setClientSecret] = useState("");
  const [domains, setDomains] = useState((config?.allowedDomains ?? []).join("\n"));
  const [emailClaim, setEmailClaim] = useState(config?.emailClaim ?? "email");
  const [jitRole, setJitRole] = useState<JitRole | "">(config?.jitRole ?? "");
  const [enabled, setEnabled] = useState(config?.enabled ?? true);
  const [done, setDone] = useState("");
  const save = useAction(async () => {
    await gql(SaveOidcSettingsDocument, {
      issuer,
      clientId,
      clientSecret: clientSecret || null,
      allowedDomains: lines(domains),
      emailClaim,
      jitRole: jitRole || null,
      enabled,
    });
    setClientSecret("");
    setDone("Provider saved.");
    onSaved();
  });
  const remove = useAction(async () => {
    await gql(DeleteOidcSettingsDocument);
    setDone("Provider removed: sign-in through it stops.");
    onSaved();
  });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void save.run();
      }}
    >
      <label>
        Issuer URL
        <input
          type="url"
          required
          value={issuer}
          placeholder="https://login.your-bank.com"
          onChange={(e) => setIssuer(e.target.value)}
        />
      </label>
      <div className="row">
        <label className="grow">
          Client id
          <input required value={clientId} onChange={(e) => setClientId(e.target.value)} />
        </label>
        <label className="grow">
          Client secret
          <input
            type="password"
            autoComplete="off"
            required={!config}
            value={clientSecret}
            placeholder={config ? `Saved (${config.clientSecret}): type to replace` : ""}
            onChange={(e) => setClientSecret(e.target.value)}
          />
        </label>
      </div>
      <label>
        E-mail domains that may sign in (one a line; none: any the provider vouches for)
        <textarea rows={2} value={domains} onChange={(e) => setDomains(e.target.value)} />
      </label>
      <div className="row">
        <label>
          E-mail claim
          <input className="narrow" required value={emailClaim} onChange={(e) => setEmailClaim(e.target.value)} />
        </label>
        <Select label="A person with no user yet" value={jitRole} onChange={(e) => setJitRole(e.target.value as JitRole | "")}>
          <option value="">is refused (existing users only)</option>
          <option value="viewer">becomes a viewer</option>
          <option value="agent">becomes an agent</option>
          <option value="admin">becomes an admin</option>
        </Select>
      </div>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Offer sign-in through this
        provider
      </label>
      <ErrorNotice error={save.error ?? remove.error} />
      {done && <Status>{done}</Status>}
      <div className="row">
        <button type="submit" disabled={save.pending}>
          {save.pending ? "Checking the provider…" : "Save provider"}
        </button>
        {config && (
          <button type="button" className="secondary" disabled={remove.pending} onClick={() => void remove.run()}>
            Remove provider
          </button>
        )}
      </div>
    </form>
  );
}

/** The bank's OpenID Connect provider: what to register there, and the link that offers it on the sign-in page. */
export function IdentityProvider({ tenantId }: { tenantId: string }) {
  const query = useQuery(OidcSettingsDocument, {});
  const config = query.data?.oidcConfig ?? null;
  const teamLink = `${window.location.origin}/dashboard/?tenant=${encodeURIComponent(tenantId)}`;
  return (
    <div className="stack">
      <h3>Your bank's identity provider (OpenID Connect)</h3>
      <ErrorNotice error={query.error} />
      {!query.data && query.loading && <Loading what="the provider" />}
      {query.data && (
        <>
          {config && (
            <>
              <label>
                Redirect URI to register at the provider
                <input readOnly value={config.redirectUri} onFocus={(e) => e.target.select()} />
              </label>
              <label>
                Your team's sign-in link (it offers “Sign in with …” on the sign-in page)
                <input readOnly value={teamLink} onFocus={(e) => e.target.select()} />
              </label>
            </>
          )}
          <OidcForm key={config?.issuer ?? "none"} config={config} onSaved={() => void query.reload()} />
        </>
      )}
    </div>
  );
}
