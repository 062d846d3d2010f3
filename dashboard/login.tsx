import { type FormEvent, useEffect, useState } from "react";
import {
  CompleteMfaLoginDocument,
  ExchangeLoginCodeDocument,
  LoginDocument,
  SignInProviderDocument,
  type SignInStepFragment,
} from "./generated";
import { ApiError, gql } from "./lib/api";
import { useAction, useQuery } from "./lib/query";
import { signedOutReason, signIn } from "./lib/session";
import { useStore } from "./lib/store";
import { ErrorNotice } from "./ui/feedback";

// The bank whose provider the page offers: the team's sign-in link names it (?tenant=ten_…), and this browser
// remembers it for the next visit.
const tenantKey = "parley.tenant";
function offeredTenant(): string | null {
  const named = new URLSearchParams(window.location.search).get("tenant");
  if (named) localStorage.setItem(tenantKey, named);
  return named ?? localStorage.getItem(tenantKey);
}

/**
 * What a sign-in through the bank's provider left in the address's fragment (which no server sees): a one-time code,
 * or why it failed. Read once and removed, so that a reload or a shared link does not carry it.
 */
function takeProviderOutcome(): { code: string | null; error: string | null } {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const code = fragment.get("login_code");
  const failure = fragment.get("login_error");
  if (code || failure) history.replaceState(null, "", window.location.pathname + window.location.search);
  return { code, error: failure && `Sign-in through your bank's provider failed: ${fragment.get("message") ?? failure}` };
}

function ProviderButton({ tenantId }: { tenantId: string }) {
  const provider = useQuery(SignInProviderDocument, { tenantId });
  const offered = provider.data?.signInProvider;
  if (!offered) return null;
  const returnTo = encodeURIComponent(window.location.pathname);
  return (
    <>
      <a className="button-link" href={`${offered.signInPath}?return_to=${returnTo}`}>
        Sign in with {offered.name}
      </a>
      <p className="divider">or with your e-mail and password</p>
    </>
  );
}

export function LoginPage() {
  const reason = useStore(signedOutReason);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [tenantId, setTenantId] = useState("");
  const [offered] = useState(offeredTenant);
  const [fromProvider] = useState(takeProviderOutcome);
  // With two-factor sign-in on, the password gives a challenge that a code from the authenticator app completes.
  const [challenge, setChallenge] = useState<string | null>(null);
  const [code, setCode] = useState("");
  const firstStep = (step: SignInStepFragment) => {
    if (step.mfaChallenge) setChallenge(step.mfaChallenge.challengeToken);
    else if (step.token && step.expiresAt && step.agent)
      signIn({
        token: step.token,
        expiresAt: step.expiresAt,
        user: step.agent,
        mfaEnrolmentRequired: step.mfaEnrolmentRequired,
      });
  };
  const login = useAction(async () => {
    if (challenge) {
      const { verifyMfaLogin: session } = await gql(CompleteMfaLoginDocument, { challengeToken: challenge, code });
      signIn({ token: session.token, expiresAt: session.expiresAt, user: session.agent });
      return;
    }
    firstStep((await gql(LoginDocument, { email, password, tenantId: tenantId || null })).login);
  });
  const exchange = useAction(async (loginCode: string) =>
    firstStep((await gql(ExchangeLoginCodeDocument, { code: loginCode })).exchangeLoginCode),
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: the code in the address is exchanged once, on arrival
  useEffect(() => {
    if (fromProvider.code) void exchange.run(fromProvider.code);
  }, [fromProvider]);
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
      {fromProvider.error && (
        <p className="notice error" role="alert">
          {fromProvider.error}
        </p>
      )}
      <ErrorNotice error={exchange.error} />
      {exchange.pending && <p role="status">Signing in through your bank's provider…</p>}
      {offered && !challenge && <ProviderButton tenantId={offered} />}
      <form onSubmit={submit} className="stack">
        {!challenge && (
          <>
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
          </>
        )}
        {!challenge && (needsTenant || tenantId) && (
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
