import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { useSession } from '../session.tsx';
import { ErrorNote, field } from '../ui.tsx';

export function SignIn() {
  const session = useSession();
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [openId, setOpenId] = useState<{ name: string; url: string } | null>(null);
  useEffect(() => {
    document.title = 'Sign in · Cloudwright';
    ok(api.GET('/v1/session/methods')).then(
      (methods) => setOpenId(methods.openid),
      () => setOpenId(null),
    );
  }, []);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    try {
      const { session: s } = await ok(api.POST('/v1/session', { body: { user: field(data, 'user'), password: field(data, 'password') } }));
      session.signedIn(s.user_id, s.csrf_token);
    } catch (err) {
      setError((err as Error).message);
      (form.elements.namedItem('password') as HTMLInputElement).value = '';
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="narrow">
      <h1>Sign in to Cloudwright</h1>
      {session.ended && (
        <p class="warn" role="status">
          Your session ended (it expired, or was signed out elsewhere): sign in again.
        </p>
      )}
      <form onSubmit={(e) => void submit(e)}>
        <label for="user">User</label>
        <input id="user" name="user" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNote message={error} />
      {openId && (
        <p>
          <a class="button" href={`${openId.url}?return_to=${encodeURIComponent(location.pathname)}`}>
            Sign in with {openId.name}
          </a>
        </p>
      )}
    </main>
  );
}
