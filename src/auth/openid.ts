// Sign-in through any OpenID Connect provider: the authorization code flow with PKCE, state and nonce
// (openid-client, certified), for a confidential client. What links a provider's account to a Cloudwright
// user is api/services/users.ts (`userForOpenId`); this file only speaks OpenID Connect.
import * as oidc from 'openid-client';

export interface OpenIdSettings {
  /** The provider's issuer URL (discovery at `<issuer>/.well-known/openid-configuration`). */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the provider sends the browser back: `<public URL>/v1/session/openid/callback`. */
  readonly redirectUri: string;
  /** A label for the sign-in button ("Sign in with …"). */
  readonly name: string;
}

/** What the browser keeps between leaving for the provider and coming back (an HttpOnly cookie). */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly returnTo: string;
}

/** Who the provider says signed in. */
export interface OpenIdAccount {
  readonly issuer: string;
  readonly subject: string;
  /** Only when the provider says it is verified. */
  readonly email?: string;
  readonly name?: string;
}

export class OpenIdSignInError extends Error {}

export class OpenIdClient {
  readonly settings: OpenIdSettings;
  #config: Promise<oidc.Configuration> | undefined;

  constructor(settings: OpenIdSettings) {
    this.settings = settings;
  }

  /** Discovery, once (retried on the next sign-in if it failed). Plain HTTP only for a provider on this machine. */
  #configuration(): Promise<oidc.Configuration> {
    this.#config ??= oidc
      .discovery(new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined, isLoopback(this.settings.issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .catch((err: unknown) => {
        this.#config = undefined;
        throw new OpenIdSignInError(`The OpenID provider ${this.settings.issuer} could not be reached: ${(err as Error).message}`);
      });
    return this.#config;
  }

  /** The provider's authorization URL for a new sign-in, and what to keep until the browser comes back. */
  async start(returnTo: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.#configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier, returnTo };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** Exchanges the code the browser brought back (checking state, nonce and the ID token) for the account. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<OpenIdAccount> {
    const config = await this.#configuration();
    let claims: oidc.IDToken | undefined;
    let profile: oidc.UserInfoResponse;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
      claims = tokens.claims();
      if (!claims) throw new OpenIdSignInError('The OpenID provider sent no ID token.');
      // Providers put email and name in the ID token or only in UserInfo (OpenID Connect Core §5.4): ask UserInfo.
      profile = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    } catch (err) {
      if (err instanceof OpenIdSignInError) throw err;
      throw new OpenIdSignInError(`The OpenID provider's answer was refused: ${(err as Error).message}`);
    }
    // The email and whether it is verified come as a pair from one source (UserInfo when it has an email, else
    // the ID token): mixing them could call one source's address verified because the other's was.
    const source: Record<string, unknown> = typeof profile.email === 'string' ? profile : claims;
    const email = typeof source.email === 'string' && source.email_verified === true ? source.email.toLowerCase() : undefined;
    const name = typeof profile.name === 'string' ? profile.name : typeof claims.name === 'string' ? claims.name : undefined;
    return { issuer: claims.iss, subject: claims.sub, ...(email ? { email } : {}), ...(name ? { name } : {}) };
  }
}

function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}
