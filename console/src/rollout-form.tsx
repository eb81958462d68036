// Set or replace an app's rollout policy (a PUT: what the form leaves empty gets its default). The steps are one
// text field as the CLI takes them; the analysis is sent when a minimum of requests is given.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { parseSteps, stepsText, type RolloutBody } from './rollout-words.ts';
import { ErrorNote, field } from './ui.tsx';

type AppPath = { projectId: string; appId: string };

/** The form's labels for the body's fields, so a refusal naming `body.steps.1.weight` names what the person sees. */
const LABELS: Record<string, string> = {
  steps: 'Steps',
  affinity: 'Affinity',
  analysis: 'Analysis',
  on_failure: 'On failure',
};

export function inFormWords(message: string): string {
  return message.replace(/^body\.([a-z_]+)(?:\.(\d+))?(?:\.([a-z_]+))?/, (whole, name: string, index: string | undefined, sub: string | undefined) => {
    const label = LABELS[name];
    if (!label) return whole;
    if (index !== undefined) return `${label} (step ${Number(index) + 1}${sub ? `, ${sub}` : ''})`;
    return label;
  });
}

const number = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

function bodyOf(data: FormData): RolloutBody {
  const affinity = field(data, 'affinity');
  const affinityName = field(data, 'affinity_name').trim();
  const minRequests = number(field(data, 'min_requests'));
  const maxError = number(field(data, 'max_error_percent'));
  const maxAbove = number(field(data, 'max_percent_above_stable'));
  const failureLimit = number(field(data, 'failure_limit'));
  const interval = field(data, 'interval').trim();
  const onFailure = field(data, 'on_failure');
  return {
    steps: parseSteps(field(data, 'steps')),
    ...(affinity === 'cookie' || affinity === 'header' ? { affinity: { [affinity]: affinityName } } : {}),
    ...(minRequests !== undefined
      ? {
          analysis: {
            min_requests: minRequests,
            ...(interval ? { interval } : {}),
            ...(maxError !== undefined ? { max_error_percent: maxError } : {}),
            ...(maxAbove !== undefined ? { max_percent_above_stable: maxAbove } : {}),
            ...(failureLimit !== undefined ? { failure_limit: failureLimit } : {}),
          },
        }
      : {}),
    ...(onFailure === 'pause' || onFailure === 'abort' ? { on_failure: onFailure } : {}),
  };
}

export function RolloutForm({ path, current, onDone }: { path: AppPath; current: RolloutBody | undefined; onDone: (saved: boolean) => void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      await ok(api.PUT('/v1/projects/{projectId}/apps/{appId}/rollout', { params: { path }, body: bodyOf(new FormData(event.currentTarget as HTMLFormElement)) }));
      onDone(true);
    } catch (err) {
      setError(inFormWords((err as Error).message));
    } finally {
      setBusy(false);
    }
  };
  const a = current?.analysis;
  const affinity = current?.affinity?.header !== undefined ? 'header' : current?.affinity?.cookie !== undefined ? 'cookie' : 'default';
  return (
    <form onSubmit={(e) => void save(e)} aria-labelledby="rollout-form">
      <h3 id="rollout-form">Rollout policy</h3>
      <ErrorNote message={error} />
      <label for="rollout-steps">Steps (weight in percent, then :pause — a duration such as 30s or 5m, or manual to wait for a promote)</label>
      <input id="rollout-steps" name="steps" required placeholder="10:30s, 50:manual, 100" defaultValue={current ? stepsText(current.steps) : ''} />
      <label for="rollout-affinity">Keep each user on one build by</label>
      <select id="rollout-affinity" name="affinity" defaultValue={affinity}>
        <option value="default">the cookie cw-rollout (default)</option>
        <option value="cookie">a cookie named below</option>
        <option value="header">a request header named below</option>
      </select>
      <label for="rollout-affinity-name">Cookie or header name</label>
      <input id="rollout-affinity-name" name="affinity_name" placeholder="x-user-id" defaultValue={current?.affinity?.header ?? current?.affinity?.cookie ?? ''} />
      <fieldset>
        <legend>Analysis (optional: give a minimum of requests and a threshold)</legend>
        <label for="rollout-min">Minimum requests per interval</label>
        <input id="rollout-min" name="min_requests" type="number" min={1} defaultValue={a?.min_requests ?? ''} />
        <label for="rollout-max-error">Most errors, in percent of the new build’s requests</label>
        <input id="rollout-max-error" name="max_error_percent" type="number" min={0} max={100} step="any" defaultValue={a?.max_error_percent ?? ''} />
        <label for="rollout-max-above">Most error percent above the stable build’s</label>
        <input id="rollout-max-above" name="max_percent_above_stable" type="number" min={0} max={100} step="any" defaultValue={a?.max_percent_above_stable ?? ''} />
        <label for="rollout-interval">Interval</label>
        <input id="rollout-interval" name="interval" placeholder="1m" defaultValue={a?.interval ?? ''} />
        <label for="rollout-failures">Failed intervals tolerated</label>
        <input id="rollout-failures" name="failure_limit" type="number" min={0} max={100} defaultValue={a?.failure_limit ?? ''} />
      </fieldset>
      <label for="rollout-on-failure">On a failed analysis</label>
      <select id="rollout-on-failure" name="on_failure" defaultValue={current?.on_failure ?? 'abort'}>
        <option value="abort">abort: all traffic back to the stable build</option>
        <option value="pause">pause: wait for a promote or an abort</option>
      </select>
      <p>
        <button type="submit" disabled={busy}>
          Save policy
        </button>{' '}
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </p>
    </form>
  );
}
