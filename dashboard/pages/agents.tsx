import { createColumnHelper } from "@tanstack/react-table";
import { useState } from "react";
import {
  AgentsPageDocument,
  type AgentsPageQuery,
  type Availability,
  CreateAgentDocument,
  CreateTeamDocument,
  DeleteTeamDocument,
  type Role,
  UpdateAgentDocument,
  UpdateTeamDocument,
} from "../generated";
import { gql } from "../lib/api";
import { useAction, useQuery } from "../lib/query";
import { useCan, useSession } from "../lib/session";
import { Badge, ErrorNotice, Status } from "../ui/feedback";
import { Select } from "../ui/inputs";
import { DataTable } from "../ui/table";

type Agent = AgentsPageQuery["agents"]["items"][number];
type Team = AgentsPageQuery["teams"][number];
const column = createColumnHelper<Agent>();
const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** The roles the caller may hand out: only an owner makes an owner. */
function useAssignableRoles(): Role[] {
  const role = useSession()!.user.role;
  return role === "owner" ? ["owner", "admin", "agent", "viewer"] : ["admin", "agent", "viewer"];
}

function AgentControls({ agent, onChanged }: { agent: Agent; onChanged: () => void }) {
  const roles = useAssignableRoles();
  const update = useAction(
    async (changes: { role?: Role; availability?: Availability; maxConcurrent?: number; active?: boolean }) => {
      await gql(UpdateAgentDocument, { id: agent.id, ...changes });
      onChanged();
    },
  );
  const mayChange = agent.role !== "owner" || roles.includes("owner");
  return (
    <div className="row">
      <Select
        hiddenLabel
        label={`Role of ${agent.name}`}
        value={agent.role}
        disabled={!mayChange || update.pending}
        onChange={(e) => void update.run({ role: e.target.value as Role })}
      >
        {(roles.includes(agent.role) ? roles : [agent.role, ...roles]).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </Select>
      <label className="inline">
        <span className="visually-hidden">Most conversations at once for {agent.name}</span>
        <input
          type="number"
          min={1}
          max={100}
          className="narrow"
          defaultValue={agent.maxConcurrent}
          disabled={!mayChange}
          onBlur={(e) => {
            const value = Number(e.target.value);
            if (value !== agent.maxConcurrent) void update.run({ maxConcurrent: value });
          }}
        />
      </label>
      {mayChange && (
        <button
          type="button"
          className="secondary"
          disabled={update.pending}
          onClick={() => void update.run({ active: !agent.active })}
        >
          {agent.active ? "Remove" : "Restore"}
          <span className="visually-hidden"> {agent.name}</span>
        </button>
      )}
      <ErrorNotice error={update.error} />
    </div>
  );
}

function AddAgent({ onAdded }: { onAdded: () => void }) {
  const roles = useAssignableRoles();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("agent");
  const [password, setPassword] = useState("");
  const [done, setDone] = useState("");
  const add = useAction(async () => {
    await gql(CreateAgentDocument, { name, email, role, password: password || null });
    setDone(`${name} can now sign in as ${email}.`);
    setName("");
    setEmail("");
    setPassword("");
    onAdded();
  });
  return (
    <form
      className="panel stack"
      aria-labelledby="add-agent-heading"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void add.run();
      }}
    >
      <h2 id="add-agent-heading">Add a person</h2>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        E-mail
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <Select label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </Select>
      <label>
        First password (10 characters or more; they can change it)
        <input
          type="password"
          autoComplete="new-password"
          minLength={10}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <ErrorNotice error={add.error} />
      {done && <Status>{done}</Status>}
      <div>
        <button type="submit" disabled={add.pending}>
          Add person
        </button>
      </div>
    </form>
  );
}

function TeamEditor({ team, agents, onChanged }: { team: Team | null; agents: Agent[]; onChanged: () => void }) {
  const mayConfigure = useCan("configure");
  const [name, setName] = useState(team?.name ?? "");
  const [intents, setIntents] = useState(team?.intents.join(", ") ?? "");
  const [members, setMembers] = useState<string[]>(team?.members.map((m) => m.id) ?? []);
  const save = useAction(async (remove?: boolean) => {
    if (remove) await gql(DeleteTeamDocument, { id: team!.id });
    else if (team) await gql(UpdateTeamDocument, { id: team.id, name, intents: list(intents), memberIds: members });
    else await gql(CreateTeamDocument, { name, intents: list(intents), memberIds: members });
    if (!team) {
      setName("");
      setIntents("");
      setMembers([]);
    }
    onChanged();
  });
  const label = team ? team.name : "the new team";
  return (
    <form
      className="panel stack"
      aria-label={team ? `Team ${team.name}` : "New team"}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      {team ? <h3>{team.name}</h3> : <h3>New team</h3>}
      <label>
        Name{team ? <span className="visually-hidden"> of {label}</span> : ""}
        <input required disabled={!mayConfigure} value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Intents it takes (comma-separated)<span className="visually-hidden"> for {label}</span>
        <input
          disabled={!mayConfigure}
          value={intents}
          placeholder="card_lost_or_stolen, fraud_report"
          onChange={(e) => setIntents(e.target.value)}
        />
      </label>
      <fieldset>
        <legend>Members of {label}</legend>
        {agents
          .filter((a) => a.active)
          .map((agent) => (
            <label key={agent.id} className="check">
              <input
                type="checkbox"
                disabled={!mayConfigure}
                checked={members.includes(agent.id)}
                onChange={(e) => setMembers(e.target.checked ? [...members, agent.id] : members.filter((id) => id !== agent.id))}
              />{" "}
              {agent.name}
            </label>
          ))}
      </fieldset>
      <ErrorNotice error={save.error} />
      {mayConfigure && (
        <div className="row">
          <button type="submit" disabled={save.pending}>
            {team ? "Save team" : "Create team"}
            {team && <span className="visually-hidden"> {team.name}</span>}
          </button>
          {team && (
            <button type="button" className="secondary" disabled={save.pending} onClick={() => void save.run(true)}>
              Delete team<span className="visually-hidden"> {team.name}</span>
            </button>
          )}
        </div>
      )}
    </form>
  );
}

export default function AgentsPage() {
  const mayConfigure = useCan("configure");
  const [showRemoved, setShowRemoved] = useState(false);
  const page = useQuery(AgentsPageDocument, { active: showRemoved ? false : null });
  const reload = () => void page.reload();
  const agents = page.data?.agents.items ?? [];
  const columns = [
    column.accessor("name", { header: "Name" }),
    column.accessor("email", { header: "E-mail" }),
    column.accessor("role", { header: "Role", cell: (info) => <Badge>{info.getValue()}</Badge> }),
    column.accessor("availability", {
      header: "Availability",
      cell: (info) => <Badge tone={info.getValue() === "online" ? "ok" : "neutral"}>{info.getValue()}</Badge>,
    }),
    column.accessor("openConversations", {
      header: "Open",
      cell: (info) => `${info.getValue()} of ${info.row.original.maxConcurrent}`,
    }),
    column.accessor((a) => a.teams.map((t) => t.name).join(", "), { id: "teams", header: "Teams" }),
    ...(mayConfigure
      ? [
          column.display({
            id: "change",
            header: "Change",
            cell: (info) => <AgentControls key={info.row.original.id} agent={info.row.original} onChanged={reload} />,
          }),
        ]
      : []),
  ];
  return (
    <section aria-labelledby="agents-heading">
      <h1 id="agents-heading">Agents and teams</h1>
      <ErrorNotice error={page.error} />
      <label className="check">
        <input type="checkbox" checked={showRemoved} onChange={(e) => setShowRemoved(e.target.checked)} /> Show removed people
      </label>
      <DataTable caption="The tenant's people" columns={columns} data={agents} empty={page.loading ? "Loading…" : "Nobody"} />
      {mayConfigure && <AddAgent onAdded={reload} />}
      <h2>Teams</h2>
      <p className="hint">An escalation whose conversation has one of a team's intents goes to that team's members.</p>
      <div className="grid-2">
        {(page.data?.teams ?? []).map((team) => (
          <TeamEditor
            key={`${team.id}-${team.name}-${team.intents.join()}-${team.members.length}`}
            team={team}
            agents={agents}
            onChanged={reload}
          />
        ))}
        {mayConfigure && <TeamEditor team={null} agents={agents} onChanged={reload} />}
      </div>
    </section>
  );
}
