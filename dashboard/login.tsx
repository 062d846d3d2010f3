import { type FormEvent, useEffect, useState } from "react";
import { CompleteMfaLoginDocument, LoginDocument } from "./generated";
import { ApiError, gql } from "./lib/api";
import { useAction } from "./lib/query";
import { signedOutReason, signIn } from "./lib/session";
import { useStore } from "./lib/store";
import { ErrorNotice } from "./ui/feedback";

export function LoginPage() {
  const reason = useStore(signedOutReason);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [tenantId, setTenantId] = useState("");
  // With two-factor sign-in on, the password gives a challenge that a code from the authenticator app completes.
  const [challenge, setChallenge] = useState<string | null>(null);
  const [code, setCode] = useState("");
  const login = useAction(async () => {
    if (challenge) {
      const { verifyMfaLogin: session } = await gql(CompleteMfaLoginDocument, { challengeToken: challenge, code });
      signIn({ token: session.token, expiresAt: session.expiresAt, user: session.agent });
      return;
    }
    const { login } = await gql(LoginDocument, { email, password, tenantId: tenantId || null });
    if (login.mfaChallenge) setChallenge(login.mfaChallenge.challengeToken);
    else if (login.token && login.expiresAt && login.agent)
      signIn({ token: login.token, expiresAt: login.expiresAt, user: login.agent });
  });
  const needsTenant = login.error instanceof ApiError && login.error.details.some((d) => d.path === "tenantId");
  useEffect(() => {
    document.title = "Sign in — Parley";
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void login.run();
  };
  return (
    <main id="main" className="login" tabIndex={-1}>
      <h1>Sign in to Parley</h1>
      {reason && (
        <p className="notice" role="status">
          {reason}
        </p>
      )}
      <form onSubmit={submit} className="stack">
        <label>
          E-mail
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {(needsTenant || tenantId) && (
          <label>
            Tenant id
            <input value={tenantId} onChange={(e) => setTenantId(e.target.value)} aria-describedby="tenant-hint" />
            <span id="tenant-hint" className="hint">
              This e-mail has accounts at several banks: give the tenant id (ten_…) of the one to open.
            </span>
          </label>
        )}
        {challenge && (
          <label>
            Code from your authenticator app, or a recovery code
            <input
              autoComplete="one-time-code"
              inputMode="text"
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </label>
        )}
        <ErrorNotice error={login.error} />
        <button type="submit" disabled={login.pending}>
          {login.pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p className="hint">First start? The service printed an owner's e-mail and password for the demo bank in its terminal.</p>
    </main>
  );
}
