import type { TypedDocumentString } from "../generated";
import { currentSession, enrolmentRequired, signOut } from "./session";

/** An answer of the API that is not data: its code (the spec's), its words, and for a 429 when to retry. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryAfterS: number | null = null,
    readonly details: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

interface GraphQLBody<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string; details?: Array<{ path: string; message: string }> } }>;
  error?: string;
  code?: string;
}

const sessionExpired = "Your session has ended: sign in again. What you were typing is kept.";

async function answerOf<T>(res: Response): Promise<T> {
  const retryAfter = res.headers.get("retry-after");
  const retryAfterS = retryAfter ? Number(retryAfter) : null;
  let body: GraphQLBody<T>;
  try {
    body = (await res.json()) as GraphQLBody<T>;
  } catch {
    throw new ApiError(`The service answered ${res.status} without a readable body: try again`, "INTERNAL");
  }
  const error = body.errors?.[0];
  const code = error?.extensions?.code ?? body.code ?? (res.ok ? null : "INTERNAL");
  if (code === "AUTH_INVALID" && currentSession()) {
    signOut(sessionExpired);
    throw new ApiError(sessionExpired, code);
  }
  // The tenant turned two-factor sign-in on while this user has none: their session may only enrol from now on.
  if (code === "FORBIDDEN" && error?.message.includes("enrol first")) enrolmentRequired();
  if (code) {
    const message = error?.message ?? body.error ?? `The service answered ${res.status}`;
    throw new ApiError(message, code, retryAfterS, error?.extensions?.details ?? []);
  }
  return body.data as T;
}

function headers(): Record<string, string> {
  const token = currentSession()?.token;
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** One GraphQL operation of dashboard/operations, typed by its generated document. */
export async function gql<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables?: TVariables,
  signal?: AbortSignal,
): Promise<TResult> {
  let res: Response;
  try {
    res = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...headers() },
      body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError("The service cannot be reached: check your connection and try again", "NETWORK");
  }
  return answerOf<TResult>(res);
}

/** An operation with one file variable, as a GraphQL multipart request (the PDF upload). */
export async function gqlUpload<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  fileVariable: keyof TVariables & string,
  file: File,
): Promise<TResult> {
  const form = new FormData();
  form.append("operations", JSON.stringify({ query: document.toString(), variables: { ...variables, [fileVariable]: null } }));
  form.append("map", JSON.stringify({ 0: [`variables.${fileVariable}`] }));
  form.append("0", file);
  const res = await fetch("/graphql", { method: "POST", headers: headers(), body: form }).catch(() => {
    throw new ApiError("The service cannot be reached: check your connection and try again", "NETWORK");
  });
  return answerOf<TResult>(res);
}

/** An error in words for the page (a 429 says when to retry). */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === "RATE_LIMIT" && error.retryAfterS !== null && !/\d/.test(error.message)) {
      return `Too many requests: try again in ${error.retryAfterS} s.`;
    }
    const details = error.details.map((d) => `${d.path}: ${d.message}`).join("; ");
    return details ? `${error.message} (${details})` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
