import { createColumnHelper } from "@tanstack/react-table";
import { type FormEvent, useState } from "react";
import {
  ConfirmMfaDocument,
  DisableMfaDocument,
  EnrolMfaDocument,
  type EnrolMfaMutation,
  MfaStatusDocument,
  type MfaStatusQuery,
  MySessionsDocument,
  type MySessionsQuery,
  RenewRecoveryCodesDocument,
  RevokeOtherSessionsDocument,
  RevokeSessionDocument,
} from "../generated";
import { gql } from "../lib/api";
import { useAction, useQuery } from "../lib/query";
import { enrolmentDone, useSession } from "../lib/session";
import { Badge, ErrorNotice, Loading, Status } from "../ui/feedback";
import { formatDateTime } from "../ui/format";
import { DataTable } from "../ui/table";

type MfaStatus = MfaStatusQuery["mfaStatus"];
type AgentSession = MySessionsQuery["sessions"][number];
type Enrolment = EnrolMfaMutation["enrolMfa"];

/** A code field of the authenticator app (or a recovery code), with the form that sends it. */
function CodeForm({
  label,
  submit,
  pending,
  onCode,
}: {
  label: string;
  submit: string;
  pending: boolean;
  onCode: (code: string) => Promise<unknown>;
}) {
  const [code, setCode] = useState("");
  const send = async (event: FormEvent) => {
    event.preventDefault();
    await onCode(code.trim());
    setCode("");
  };
  return (
    <form className="row" onSubmit={(e) => void send(e)}>
      <label>
        {label}
        <input className="narrow" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
      </label>
      <button type="submit" disabled={pending}>
        {submit}
      </button>
    </form>
  );
}

/** Recovery codes, shown this once: the service keeps only their hashes. */
function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="notice ok" role="status">
      <p>Your recovery codes, shown this once: keep them somewhere safe. Each signs you in once if you lose your phone.</p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Enrol({ enrolment, onConfirmed }: { enrolment: Enrolment; onConfirmed: (codes: string[]) => void }) {
  const confirm = useAction(async (code: string) => {
    const { confirmMfa } = await gql(ConfirmMfaDocument, { code });
    onConfirmed(confirmMfa);
  });
  return (
    <div className="stack">
      <ol className="steps">
        <li>
          Scan this code with your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password…):
          <img
            className="qr"
            width={200}
            height={200}
            src={`data:image/svg+xml,${encodeURIComponent(enrolment.qrSvg)}`}
            alt="QR code of your two-factor secret, for your authenticator app"
          />
          or type the key in:
          <input className="secret" readOnly aria-label="Secret key" value={enrolment.secret} />
          <a href={enrolment.otpauthUri}>Open in an authenticator app on this device</a>
        </li>
        <li>
          <CodeForm
            label="Code the app shows"
            submit="Turn on two-factor sign-in"
            pending={confirm.pending}
            onCode={confirm.run}
          />
        </li>
      </ol>
      <ErrorNotice error={confirm.error} />
    </div>
  );
}

function TwoFactor({ status, onChanged }: { status: MfaStatus; onChanged: () => void }) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [done, setDone] = useState("");
  const start = useAction(async () => {
    setCodes(null);
    setDone("");
    setEnrolment((await gql(EnrolMfaDocument)).enrolMfa);
  });
  const disable = useAction(async (code: string) => {
    await gql(DisableMfaDocument, { code });
    setCodes(null);
    setDone("Two-factor sign-in is off.");
    onChanged();
  });
  const renew = useAction(async (code: string) => {
    setCodes((await gql(RenewRecoveryCodesDocument, { code })).renewRecoveryCodes);
    onChanged();
  });
  const confirmed = (recoveryCodes: string[]) => {
    setEnrolment(null);
    setCodes(recoveryCodes);
    enrolmentDone();
    onChanged();
  };
  return (
    <section className="panel stack" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">Two-factor sign-in</h2>
      {status.enrolmentRequired && (
        <p className="notice" role="status">
          Your bank requires two-factor sign-in: set it up to open the rest of the dashboard.
        </p>
      )}
      <p>
        {status.enabled ? (
          <>
            <Badge tone="ok">On</Badge> A code of your authenticator app is asked after your password. {status.recoveryCodesLeft}{" "}
            recovery codes left.
          </>
        ) : (
          <>
            <Badge>Off</Badge> Signing in asks only for your password.
          </>
        )}
      </p>
      {codes && <RecoveryCodes codes={codes} />}
      {done && <Status>{done}</Status>}
      {!status.enabled && !enrolment && (
        <div>
          <button type="button" disabled={start.pending} onClick={() => void start.run()}>
            Set up two-factor sign-in
          </button>
        </div>
      )}
      {!status.enabled && enrolment && <Enrol enrolment={enrolment} onConfirmed={confirmed} />}
      {status.enabled && (
        <>
          <CodeForm
            label="Code, to get new recovery codes"
            submit="New recovery codes"
            pending={renew.pending}
            onCode={renew.run}
          />
          {status.tenantRequires ? (
            <p className="hint">Your bank requires two-factor sign-in: it cannot be turned off.</p>
          ) : (
            <CodeForm
              label="Code, to turn it off"
              submit="Turn off two-factor sign-in"
              pending={disable.pending}
              onCode={disable.run}
            />
          )}
        </>
      )}
      <ErrorNotice error={start.error ?? disable.error ?? renew.error} />
    </section>
  );
}

const sessionColumn = createColumnHelper<AgentSession>();

function Sessions() {
  const query = useQuery(MySessionsDocument, {});
  const sessions = query.data?.sessions ?? [];
  const onChanged = () => void query.reload();
  const [done, setDone] = useState("");
  const revoke = useAction(async (id: string) => {
    await gql(RevokeSessionDocument, { id });
    setDone("The session is ended.");
    onChanged();
  });
  const revokeOthers = useAction(async () => {
    const { revokeSessions } = await gql(RevokeOtherSessionsDocument);
    setDone(`${revokeSessions} other ${revokeSessions === 1 ? "session" : "sessions"} ended.`);
    onChanged();
  });
  const columns = [
    sessionColumn.accessor("createdAt", {
      header: "Signed in",
      cell: (info) => (
        <>
          {formatDateTime(info.getValue())} {info.row.original.current && <Badge tone="ok">this one</Badge>}
        </>
      ),
    }),
    sessionColumn.accessor("method", { header: "How" }),
    sessionColumn.accessor("lastUsedAt", { header: "Last used", cell: (info) => formatDateTime(info.getValue()) }),
    sessionColumn.accessor("ipAddress", { header: "From", cell: (info) => info.getValue() ?? "—" }),
    sessionColumn.accessor("userAgent", {
      header: "Browser",
      cell: (info) => <span className="clip">{info.getValue() ?? "—"}</span>,
    }),
    sessionColumn.display({
      id: "actions",
      header: "Actions",
      cell: (info) =>
        info.row.original.current ? (
          <span className="muted">Sign out above</span>
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={revoke.pending}
            onClick={() => void revoke.run(info.row.original.id)}
          >
            End<span className="visually-hidden"> the session signed in {formatDateTime(info.row.original.createdAt)}</span>
          </button>
        ),
    }),
  ];
  return (
    <section className="panel stack" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      <DataTable caption="Your sessions" columns={columns} data={sessions} empty={query.loading ? "Loading…" : "No sessions"} />
      {done && <Status>{done}</Status>}
      <ErrorNotice error={query.error ?? revoke.error ?? revokeOthers.error} />
      {sessions.length > 1 && (
        <div>
          <button type="button" className="secondary" disabled={revokeOthers.pending} onClick={() => void revokeOthers.run()}>
            Sign out everywhere else
          </button>
        </div>
      )}
    </section>
  );
}

export default function AccountPage() {
  const session = useSession();
  const page = useQuery(MfaStatusDocument, {});
  return (
    <section aria-labelledby="account-heading">
      <h1 id="account-heading">My account</h1>
      <p className="muted">
        {session?.user.name} · {session?.user.email}
      </p>
      <ErrorNotice error={page.error} />
      {!page.data && page.loading && <Loading what="your account" />}
      {page.data && (
        <>
          <TwoFactor status={page.data.mfaStatus} onChanged={() => void page.reload()} />
          {!page.data.mfaStatus.enrolmentRequired && <Sessions />}
        </>
      )}
    </section>
  );
}
