import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** The claims of a person the provider knows, by subject. */
export interface FakeAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, FakeAccount>;
  /** Who signs in at the provider's login page next (the person at the browser). */
  signInAs(subject: string): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, certified) on 127.0.0.1: discovery, authorization code flow with
 * PKCE required, ID tokens signed with its own RSA key, userinfo. Its login and consent pages are replaced by an
 * interaction that signs in whoever `signInAs` named and grants the scopes asked for, as a person would click.
 */
export async function startOidcProvider(redirectUri: string): Promise<FakeOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "parley-dashboard";
  const clientSecret = "a client secret of the bank's provider";
  const accounts = new Map<string, FakeAccount>();
  let nextSubject = "";
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "test-key", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["a cookie key of the fake provider"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
    },
  });
  const callback = provider.callback();

  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === "login") {
        await provider.interactionFinished(req, res, { login: { accountId: nextSubject } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
    })().catch((error: Error) => {
      res.statusCode = 500;
      res.end(error.message);
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signInAs(subject) {
      nextSubject = subject;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
