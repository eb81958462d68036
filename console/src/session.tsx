// Who is signed in: the console asks GET /v1/session at start (the cookie goes by itself) and keeps the user
// and the CSRF token in memory only.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { api, ok, ProblemError, setCsrfToken, whenSignedOut } from './api/client.ts';

export interface SessionState {
  /** `undefined` while it is being found out. */
  userId: string | null | undefined;
  /** Why the person is signed out, when it was not their doing (the session expired or was revoked). */
  ended: boolean;
  signedIn(userId: string, csrf: string): void;
  signOut(): Promise<void>;
  signOutEverywhere(): Promise<void>;
}

const SessionContext = createContext<SessionState>({ userId: undefined, ended: false, signedIn: () => {}, signOut: async () => {}, signOutEverywhere: async () => {} });

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [userId, setUserId] = useState<string | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    whenSignedOut(() => {
      setCsrfToken(null);
      setEnded(true);
      setUserId(null);
    });
    ok(api.GET('/v1/session'))
      .then(({ session }) => {
        setCsrfToken(session.csrf_token);
        setUserId(session.user_id);
      })
      .catch(() => setUserId(null));
  }, []);
  const end = async (request: Promise<unknown>): Promise<void> => {
    try {
      await request;
    } catch (err) {
      // Still signed in unless the server says the session is gone already.
      if (!(err instanceof ProblemError && err.status === 401)) {
        alert(`Signing out failed: ${(err as Error).message}`);
        return;
      }
    }
    setCsrfToken(null);
    setEnded(false);
    setUserId(null);
  };
  const state: SessionState = {
    userId,
    ended,
    signedIn: (id, csrf) => {
      setCsrfToken(csrf);
      setEnded(false);
      setUserId(id);
    },
    signOut: () => end(ok(api.DELETE('/v1/session'))),
    signOutEverywhere: () => end(ok(api.DELETE('/v1/sessions'))),
  };
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  return useContext(SessionContext);
}
