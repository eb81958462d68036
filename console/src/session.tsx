// Who is signed in: the console asks GET /v1/session at start (the cookie goes by itself) and keeps the user
// and the CSRF token in memory only.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { api, ok, useCsrfToken } from './api/client.ts';

export interface SessionState {
  /** `undefined` while it is being found out. */
  userId: string | null | undefined;
  signedIn(userId: string, csrf: string): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState>({ userId: undefined, signedIn: () => {}, signOut: async () => {} });

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [userId, setUserId] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    ok(api.GET('/v1/session'))
      .then(({ session }) => {
        useCsrfToken(session.csrf_token);
        setUserId(session.user_id);
      })
      .catch(() => setUserId(null));
  }, []);
  const state: SessionState = {
    userId,
    signedIn: (id, csrf) => {
      useCsrfToken(csrf);
      setUserId(id);
    },
    signOut: async () => {
      await ok(api.DELETE('/v1/session')).catch(() => undefined);
      useCsrfToken(null);
      setUserId(null);
    },
  };
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  return useContext(SessionContext);
}
