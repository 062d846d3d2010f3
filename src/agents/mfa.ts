import { createHash, randomBytes } from "node:crypto";
import { renderSVG } from "uqr";
import type { Principal } from "../auth/principal.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import type { Services } from "../services.js";
import { base32Decode, base32Encode, matchTotp, newTotpSecret, otpauthUri } from "./totp.js";

const recoveryCodeCount = 10;

export interface Enrolment {
  /** The shared secret in base32, for typing into an authenticator app. */
  secret: string;
  otpauthUri: string;
  /** The same URI as a QR code (SVG), rendered here: nothing is fetched from elsewhere. */
  qrSvg: string;
}

/** A tenant's `requireMfa` setting: every dashboard user must sign in with a second factor. */
export function requiresMfa(settings: unknown): boolean {
  return (settings as { requireMfa?: unknown } | null)?.requireMfa === true;
}

function userOf(principal: Principal | null): string {
  if (principal?.kind !== "user") throw new AppError("VALIDATION", "Two-factor sign-in is for dashboard users, not API keys");
  return principal.id;
}

// Recovery codes carry 80 random bits, so a plain SHA-256 of them cannot be searched back.
const normalizeRecoveryCode = (code: string) => code.replace(/[\s-]/g, "").toUpperCase();
const hashRecoveryCode = (code: string) => createHash("sha256").update(normalizeRecoveryCode(code)).digest("hex");

function newRecoveryCode(): string {
  return base32Encode(randomBytes(10)).match(/.{4}/g)!.join("-");
}

async function replaceRecoveryCodes(db: TenantDb, tenantId: string, userId: string): Promise<string[]> {
  const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
  await db.$transaction([
    db.mfaRecoveryCode.deleteMany({ where: { userId } }),
    db.mfaRecoveryCode.createMany({
      data: codes.map((code) => ({ id: newId("rcv"), tenantId, userId, codeHash: hashRecoveryCode(code) })),
    }),
  ]);
  return codes;
}

/** Starts (or restarts) the caller's enrolment: a new secret, active once confirmed with a first code. */
export async function startEnrolment(services: Services, db: TenantDb, principal: Principal | null): Promise<Enrolment> {
  const userId = userOf(principal);
  const user = await db.user.findUnique({ where: { id: userId }, include: { tenant: { select: { name: true } } } });
  if (!user) throw notFound("Agent");
  if (user.mfaEnabledAt) throw new AppError("VALIDATION", "Two-factor sign-in is already on: disable it first to enrol again");
  const secret = newTotpSecret();
  await db.user.update({
    where: { id: userId },
    data: { mfaSecret: services.secrets.seal(base32Encode(secret)), mfaLastStep: null },
  });
  const uri = otpauthUri(secret, `Parley (${user.tenant.name})`, user.email);
  return { secret: base32Encode(secret), otpauthUri: uri, qrSvg: renderSVG(uri, { ecc: "M", border: 2 }) };
}

/** Confirms the enrolment with a first code from the app: two-factor sign-in is on; the recovery codes, shown once. */
export async function confirmEnrolment(
  services: Services,
  db: TenantDb,
  principal: Principal | null,
  code: string,
  clientIp: string,
): Promise<string[]> {
  const userId = userOf(principal);
  const user = await db.user.findUnique({ where: { id: userId } });
  if (!user) throw notFound("Agent");
  if (user.mfaEnabledAt) throw new AppError("VALIDATION", "Two-factor sign-in is already on");
  if (!user.mfaSecret) throw new AppError("VALIDATION", "Start the enrolment first (enrolMfa)");
  await services.loginThrottle.admitCode(userId, clientIp);
  const step = matchTotp(base32Decode(services.secrets.open(user.mfaSecret)), code.trim(), Date.now());
  if (step === null) throw wrongCode();
  // Conditional on the secret confirmed, so two confirmations racing turn it on once.
  const { count } = await db.user.updateMany({
    where: { id: userId, mfaEnabledAt: null, mfaSecret: user.mfaSecret },
    data: { mfaEnabledAt: new Date(), mfaLastStep: step },
  });
  if (count !== 1) throw new AppError("VALIDATION", "The enrolment changed meanwhile: start it again");
  await services.loginThrottle.codeSucceeded(userId, clientIp);
  return replaceRecoveryCodes(db, user.tenantId, userId);
}

const wrongCode = () => new AppError("AUTH_INVALID", "Wrong or already used code");

/**
 * Checks a second factor of a user with two-factor sign-in on: a code of the app within one step of now that is
 * newer than the last one accepted (a code cannot be used twice, even within its window), or an unused recovery
 * code, which is then used up. Counted by the login throttle like passwords; a wrong code is 401 AUTH_INVALID.
 */
export async function verifySecondFactor(
  services: Services,
  db: TenantDb,
  userId: string,
  code: string,
  clientIp: string,
): Promise<void> {
  await services.loginThrottle.admitCode(userId, clientIp);
  const user = await db.user.findUnique({ where: { id: userId }, select: { mfaSecret: true, mfaEnabledAt: true } });
  if (!user?.mfaEnabledAt || !user.mfaSecret) throw new AppError("VALIDATION", "Two-factor sign-in is not on");
  const given = code.trim();
  const step = matchTotp(base32Decode(services.secrets.open(user.mfaSecret)), given, Date.now());
  const accepted =
    step !== null
      ? await db.user.updateMany({
          where: { id: userId, OR: [{ mfaLastStep: null }, { mfaLastStep: { lt: step } }] },
          data: { mfaLastStep: step },
        })
      : await db.mfaRecoveryCode.updateMany({
          where: { userId, codeHash: hashRecoveryCode(given), usedAt: null },
          data: { usedAt: new Date() },
        });
  if (accepted.count !== 1) throw wrongCode();
  await services.loginThrottle.codeSucceeded(userId, clientIp);
}

/** Turns the caller's two-factor sign-in off, with a code; refused while the tenant requires it. */
export async function disableMfa(
  services: Services,
  db: TenantDb,
  principal: Principal | null,
  code: string,
  clientIp: string,
): Promise<void> {
  const userId = userOf(principal);
  const tenant = await db.tenant.findUnique({ where: { id: principal!.tenantId }, select: { settings: true } });
  if (requiresMfa(tenant?.settings)) {
    throw new AppError("VALIDATION", "The tenant requires two-factor sign-in: it cannot be turned off");
  }
  await verifySecondFactor(services, db, userId, code, clientIp);
  await clearMfa(db, userId);
}

/** New recovery codes for the caller (the old ones stop working), with a code. */
export async function renewRecoveryCodes(
  services: Services,
  db: TenantDb,
  principal: Principal | null,
  code: string,
  clientIp: string,
): Promise<string[]> {
  const userId = userOf(principal);
  await verifySecondFactor(services, db, userId, code, clientIp);
  return replaceRecoveryCodes(db, principal!.tenantId, userId);
}

/** The user's two-factor sign-in off and forgotten: secret, last step and recovery codes. */
export async function clearMfa(db: TenantDb, userId: string): Promise<void> {
  await db.$transaction([
    db.user.update({ where: { id: userId }, data: { mfaSecret: null, mfaEnabledAt: null, mfaLastStep: null } }),
    db.mfaRecoveryCode.deleteMany({ where: { userId } }),
  ]);
}

/** How many of the user's recovery codes are still unused. */
export function recoveryCodesLeft(db: TenantDb, userId: string): Promise<number> {
  return db.mfaRecoveryCode.count({ where: { userId, usedAt: null } });
}
