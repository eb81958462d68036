// Why an EventSource closed: EventSource hides the answer that refused it, so the page asks the same URL once
// more without following and reads the API's problem details, worded as every other page words them (`ok`).
import { ok } from './api/client.ts';

export async function streamRefusal(url: string, what: string): Promise<string> {
  const answer = fetch(url, { credentials: 'same-origin' }).then(async (response) => ({ response, error: response.ok ? undefined : await response.json().catch(() => undefined) }));
  try {
    await ok(answer);
    return `The ${what} could not be followed; reload the page to try again.`;
  } catch (err) {
    return (err as Error).message;
  }
}
