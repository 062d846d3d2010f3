// Types for the receivers' snippet (verify.mjs), which the tests run as documented.
export function verifyParleyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  nowMs?: number,
): { id: string; type: string; timestamp: string; tenant_id: string; data: any };
