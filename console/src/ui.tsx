// Small pieces every page uses: the frame with navigation, loading and error states, a copy button.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useSession } from './session.tsx';

export function Frame({ title, children }: { title: string; children: ComponentChildren }) {
  const session = useSession();
  useEffect(() => {
    document.title = `${title} · Cloudwright`;
  }, [title]);
  return (
    <>
      <header class="top">
        <a class="brand" href="/console/">
          Cloudwright
        </a>
        <nav aria-label="Main">
          <a href="/console/">Projects</a>
          <a href="/console/tokens">Tokens</a>
        </nav>
        <span class="who">{session.userId}</span>
        <button type="button" class="link" onClick={() => void session.signOut()}>
          Sign out
        </button>
        <button type="button" class="link" onClick={() => void session.signOutEverywhere()}>
          Sign out everywhere
        </button>
      </header>
      <main id="main">
        <h1>{title}</h1>
        {children}
      </main>
    </>
  );
}

/** Loads data once (and again when `deps` change), with loading and error states; `reload` refetches. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): { data: T | undefined; error: string | undefined; reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && (setData(value), setError(undefined)),
      (err: unknown) => live && setError((err as Error).message),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { data, error, reload: () => setRound((r) => r + 1) };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorNote({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A text field of a submitted form ('' when absent or a file). */
export function field(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}

/** A table's header row: its columns, and a last one for row actions named for screen readers only. */
export function Head({ columns, action }: { columns: readonly string[]; action?: string }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
        {action && (
          <th scope="col">
            <span class="visually-hidden">{action}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/**
 * Calls `reload` every `ms` while the page is visible and `active` holds: for pages showing what changes
 * elsewhere (builds started by a push), which the API does not push to the page.
 */
export function useRefresh(reload: () => void, ms: number, active = true): void {
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}
