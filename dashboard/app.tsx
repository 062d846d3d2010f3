import { type ComponentType, lazy, Suspense, useEffect } from "react";
import { type Availability, LogoutDocument, SetAvailabilityDocument } from "./generated";
import { gql } from "./lib/api";
import { useAction } from "./lib/query";
import { Link, navigate, useLocation } from "./lib/router";
import { can, signOut, updateUser, useSession } from "./lib/session";
import { LoginPage } from "./login";
import { ErrorNotice, Loading } from "./ui/feedback";
import { Select } from "./ui/inputs";

type Permission = Parameters<typeof can>[1];

interface PageDef {
  path: string;
  title: string;
  component: ComponentType<{ rest: string[] }>;
  /** The permission a role needs to see the page at all. */
  needs: Permission;
}

// One chunk per page (esbuild splitting): the first visit loads the shell and the page it opens on.
const pages: PageDef[] = [
  { path: "inbox", title: "Inbox", needs: "read", component: lazy(() => import("./pages/inbox")) },
  { path: "escalations", title: "Escalations", needs: "read", component: lazy(() => import("./pages/escalations")) },
  { path: "knowledge", title: "Knowledge", needs: "read", component: lazy(() => import("./pages/knowledge")) },
  { path: "analytics", title: "Analytics", needs: "read", component: lazy(() => import("./pages/analytics")) },
  { path: "channels", title: "Channels", needs: "read", component: lazy(() => import("./pages/channels")) },
  { path: "intents", title: "Intents", needs: "read", component: lazy(() => import("./pages/intents")) },
  { path: "agents", title: "Agents and teams", needs: "read", component: lazy(() => import("./pages/agents")) },
  { path: "settings", title: "Settings", needs: "read", component: lazy(() => import("./pages/settings")) },
  {
    path: "compliance",
    title: "Compliance",
    needs: "configure",
    component: lazy(() => import("./pages/compliance")),
  },
  { path: "account", title: "My account", needs: "read", component: lazy(() => import("./pages/account")) },
];
const accountPage = pages.find((p) => p.path === "account")!;

function Shell() {
  const session = useSession()!;
  const { path } = useLocation();
  const [, section = "", ...rest] = path.replace(/^\/dashboard\/?/, "/").split("/");
  // A session held back until its user enrols in two-factor sign-in may open their account page only.
  const enrolling = session.mfaEnrolmentRequired === true;
  const page = enrolling ? accountPage : pages.find((p) => p.path === section);
  useEffect(() => {
    if (enrolling && section !== accountPage.path) navigate(`/dashboard/${accountPage.path}`, { replace: true });
    else if (!page) navigate("/dashboard/inbox", { replace: true });
  }, [page, enrolling, section]);
  useEffect(() => {
    if (page) document.title = `${page.title} — Parley`;
  }, [page]);
  const visible = enrolling ? [accountPage] : pages.filter((p) => can(session.user.role, p.needs));
  const availability = useAction(async (value: Availability) => {
    const changed = await gql(SetAvailabilityDocument, { id: session.user.id, availability: value });
    updateUser(changed.updateAgent);
  });
  const logout = async () => {
    await gql(LogoutDocument).catch(() => undefined);
    signOut();
  };
  const Page = page?.component;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Parley</span>
        <div className="me">
          <span>
            {session.user.name} <span className="muted">({session.user.role})</span>
          </span>
          {session.user.role !== "viewer" && !enrolling && (
            <Select
              hiddenLabel
              label="My availability"
              value={session.user.availability}
              disabled={availability.pending}
              onChange={(e) => void availability.run(e.target.value as Availability)}
            >
              <option value="online">Online</option>
              <option value="away">Away</option>
              <option value="offline">Offline</option>
            </Select>
          )}
          <button type="button" className="secondary" onClick={() => void logout()}>
            Sign out
          </button>
        </div>
      </header>
      <nav aria-label="Sections" className="sidenav">
        <ul>
          {visible.map((p) => (
            <li key={p.path}>
              <Link to={`/dashboard/${p.path}`} aria-current={p === page ? "page" : undefined}>
                {p.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <ErrorNotice error={availability.error} />
        {page && !can(session.user.role, page.needs) ? (
          <p className="notice error" role="alert">
            Your role ({session.user.role}) may not open {page.title}.
          </p>
        ) : (
          Page && (
            <Suspense fallback={<Loading what={page.title} />}>
              <Page rest={rest} />
            </Suspense>
          )
        )}
      </main>
    </div>
  );
}

export function App() {
  const session = useSession();
  return session ? <Shell /> : <LoginPage />;
}
