// Personal access tokens: made here with the scopes chosen, the plaintext shown once with a copy button,
// listed without their values, revoked.
import { useState } from 'preact/hooks';
import { isScope, SCOPE_NAMES, type Scope } from '../../../src/auth/scopes.ts';
import { api, ok } from '../api/client.ts';
import { CopyButton, ErrorNote, field, Frame, Head, Loading, useLoad } from '../ui.tsx';

// The API's own scope catalog (bundled with the console), less `admin`, which a console session never holds.
const SCOPES = SCOPE_NAMES.filter((scope) => scope !== 'admin');

export function Tokens() {
  const tokens = useLoad(() => ok(api.GET('/v1/tokens')));
  const [made, setMade] = useState<{ id: string; value: string } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const create = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const scopes = data.getAll('scope').filter((v): v is Scope => typeof v === 'string' && isScope(v));
    const days = Number(field(data, 'days'));
    setError(undefined);
    try {
      const answer = await ok(api.POST('/v1/tokens', { body: { description: field(data, 'description'), scopes, ...(days > 0 ? { expires_in_days: days } : {}) } }));
      setMade({ id: answer.token.token_id, value: answer.access_token });
      form.reset();
      tokens.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const revoke = async (id: string) => {
    if (!confirm(`Revoke ${id}? Anything using it stops working.`)) return;
    try {
      await ok(api.DELETE('/v1/tokens/{tokenId}', { params: { path: { tokenId: id } } }));
      tokens.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const list = tokens.data?.tokens.filter((t) => !t.session) ?? [];
  return (
    <Frame title="Access tokens">
      {made && (
        <section class="once" aria-labelledby="made">
          <h2 id="made">Your new token</h2>
          <p>
            This is the only time it is shown: copy it now. <code class="secret">{made.value}</code> <CopyButton text={made.value} label="Copy token" />
          </p>
          <button type="button" onClick={() => setMade(undefined)}>
            I stored it
          </button>
        </section>
      )}
      <section aria-labelledby="new">
        <h2 id="new">New token</h2>
        <form onSubmit={(e) => void create(e)}>
          <label for="description">What it is for</label>
          <input id="description" name="description" required maxLength={256} placeholder="CI deploys" />
          <fieldset>
            <legend>Scopes</legend>
            <div class="scopes">
              {SCOPES.map((scope) => (
                <label class="check" key={scope}>
                  <input type="checkbox" name="scope" value={scope} /> {scope}
                </label>
              ))}
            </div>
          </fieldset>
          <label for="days">Expires after (days; empty: never)</label>
          <input id="days" name="days" type="number" min={1} max={365} />
          <button type="submit">Create token</button>
        </form>
        <ErrorNote message={error} />
      </section>
      <section aria-labelledby="yours">
        <h2 id="yours">Your tokens</h2>
        <ErrorNote message={tokens.error} />
        {!tokens.data && !tokens.error && <Loading what="tokens" />}
        {tokens.data && list.length === 0 && <p>No tokens yet.</p>}
        {list.length > 0 && (
          <table>
            <caption class="visually-hidden">Your tokens, newest first</caption>
            <Head columns={['Token', 'Scopes', 'State']} action="Action" />
            <tbody>
              {list.map((t) => (
                <tr key={t.token_id}>
                  <td>
                    {t.description} <code class="muted">{t.token_id}</code>
                  </td>
                  <td>{t.scopes.join(' ')}</td>
                  <td>{t.state}</td>
                  <td>
                    {t.state === 'active' && (
                      <button type="button" onClick={() => void revoke(t.token_id)}>
                        Revoke {t.description}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Frame>
  );
}
