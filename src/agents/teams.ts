import { newId } from "../db/ids.js";
import type { TenantDb, TenantTx } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";

export interface TeamInput {
  name?: string;
  /** Intents whose escalations go to this team. */
  intents?: string[];
  memberIds?: string[];
}

/** Sets a team's members to exactly `memberIds`, each an agent of the tenant. */
export async function setMembers(tx: TenantTx, tenantId: string, teamId: string, memberIds: string[]): Promise<void> {
  const unique = [...new Set(memberIds)];
  const found = await tx.user.count({ where: { id: { in: unique } } });
  if (found !== unique.length) throw notFound("Agent");
  await tx.teamMember.deleteMany({ where: { teamId } });
  await tx.teamMember.createMany({ data: unique.map((userId) => ({ teamId, userId, tenantId })) });
}

async function nameFree(tx: TenantTx, name: string, except?: string): Promise<void> {
  const taken = await tx.team.findFirst({ where: { name, id: { not: except } }, select: { id: true } });
  if (taken) throw new AppError("VALIDATION", `A team named ${name} exists`, [{ path: "name", message: "taken" }]);
}

export async function createTeam(db: TenantDb, tenantId: string, input: TeamInput & { name: string }): Promise<string> {
  const id = newId("team");
  await db.$transaction(async (tx) => {
    await nameFree(tx, input.name);
    await tx.team.create({ data: { id, tenantId, name: input.name, intents: input.intents ?? [] } });
    if (input.memberIds) await setMembers(tx, tenantId, id, input.memberIds);
  });
  return id;
}

export async function updateTeam(db: TenantDb, tenantId: string, id: string, input: TeamInput): Promise<void> {
  await db.$transaction(async (tx) => {
    if (!(await tx.team.findUnique({ where: { id }, select: { id: true } }))) throw notFound("Team");
    if (input.name) await nameFree(tx, input.name, id);
    await tx.team.update({ where: { id }, data: { name: input.name, intents: input.intents } });
    if (input.memberIds) await setMembers(tx, tenantId, id, input.memberIds);
  });
}

/** Removes a team; its escalations stay, for any agent. */
export async function deleteTeam(db: TenantDb, id: string): Promise<void> {
  const { count } = await db.team.deleteMany({ where: { id } });
  if (!count) throw notFound("Team");
}
